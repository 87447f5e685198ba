/**
 * The soak: three Ferry instances on one PostgreSQL and one S3 bucket
 * (s3rver, reached through a {@link Gate} that can be shut) behind a
 * round-robin {@link Balancer}, driven by a mixed load for a set time while
 * faults are injected on a schedule, then checked from the store and the
 * bucket. A fourth instance, on a local datasource on a small tmpfs and its
 * own database, is filled until uploads fail and then freed.
 *
 * `bench/soak.ts` runs it for five minutes and writes `bench/results/soak.md`;
 * `tests/e2e/soak_test.ts` runs it for 30 s.
 */
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import postgres from "postgres";
import { systemRandom } from "../../../core/clock.ts";
import { clientToken } from "../../../core/tokens.ts";
import { openPostgresStore } from "../../../db/postgres/mod.ts";
import { S3Datasource } from "../../../storage/s3.ts";
import { startPostgres } from "../postgres_cluster.ts";
import { startS3rver } from "../s3rver.ts";
import { S3RVER_CREDENTIALS } from "../services.ts";
import { startBalancer } from "./balancer.ts";
import { type Checked, checkEverything } from "./checks.ts";
import { type DiskResult, fillDisk, mountTmpfs } from "./disk.ts";
import { Instance, type PhaseMemory } from "./instance.ts";
import { healthy } from "../process.ts";
import {
  Client,
  downloadRange,
  passwordAccess,
  Recorder,
  shortenAndVisit,
  uploadChunked,
  uploadSmall,
} from "./load.ts";
import { openGate } from "./gate.ts";
import { ferryConnections, measureQueries, type QueryCost } from "./queries.ts";

/** How long and how hard. */
export interface SoakOptions {
  durationMs: number;
  /** Smallest and largest chunked upload, in MiB. */
  chunkedMib: [number, number];
  /** Concurrent clients of the small-request mix. */
  workers: number;
  /** Measure what each kind of request costs PostgreSQL first (`queries.ts`; about 25 s). */
  measureQueries?: boolean;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** One fault as it happened. */
export interface FaultRecord {
  name: string;
  at: string;
  observed: string[];
}

/** Everything the report needs. */
export interface SoakResult {
  options: SoakOptions;
  recorder: Recorder;
  faults: FaultRecord[];
  checked: Checked;
  disk: DiskResult | null;
  /** Per settings change, when the last instance took it (ms after the change): after, before. */
  settingsLagMs: [number, number][];
  /** PostgreSQL transactions per request, by kind (`queries.ts`). */
  queryCosts: QueryCost[];
  /** The most connections the instances held at once (sampled each second). */
  peakConnections: number;
  rateProbes: {
    ok: number;
    limited: number;
    failed: number;
    sent: number;
    /** How many were allowed in each window that counted some (by `X-RateLimit-Reset`). */
    allowedPerWindow: number[];
  }[];
  peakRssMib: Record<string, number>;
  /** Each instance's `Deno.memoryUsage()` at its most, by phase of the run. */
  memory: Record<string, PhaseMemory[]>;
  /** Each instance's WARN and ERROR lines, by message, with counts. */
  logged: Record<string, [string, number][]>;
  served: number[];
  wallMs: number;
}

const SECRET = "soak-secret-soak-secret-soak-secret-soak-secret";
const RATE_MAX = 40;
const RATE_WINDOW_MS = 5000;
const QUOTA_BYTES = 8 * 1024 * 1024;

/** Runs the soak; the caller judges `recorder.problems` (each is a loss or a broken promise). */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => {});
  const began = Date.now();
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  try {
    const [pg, s3] = await Promise.all([startPostgres({ durable: true }), startS3rver()]);
    cleanups.push(() => pg.stop(), () => s3.stop());
    const s3Port = Number(new URL(s3.endpoint).port);
    const gate = openGate({ hostname: "127.0.0.1", port: s3Port });
    cleanups.push(() => gate.close());
    const bucketName = "ferry-soak";
    const s3Client = new S3Client({
      endpoint: s3.endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    });
    cleanups.push(() => s3Client.destroy());
    await s3Client.send(new CreateBucketCommand({ Bucket: bucketName }));
    const monitor = postgres(pg.url, { max: 1, onnotice: () => {} });
    cleanups.push(() => monitor.end({ timeout: 1 }));
    await monitor`create database ferry_disk`;

    const dataDir = await Deno.makeTempDir({ prefix: "ferry-soak-" });
    cleanups.push(() => Deno.remove(dataDir, { recursive: true }));
    const common = {
      SERVICE_SECRET: SECRET,
      SERVICE_RATELIMIT_MAX: String(RATE_MAX),
      SERVICE_RATELIMIT_WINDOW: String(RATE_WINDOW_MS),
      SERVICE_CHUNKS_MAX: "300mb",
      SERVICE_CHUNKS_SIZE: "5mb",
      SERVICE_FILES_MAX_FILE_SIZE: "300mb",
    };
    const instances = [0, 1, 2].map((i) =>
      new Instance(`instance ${i}`, {
        ...common,
        DATABASE_URL: pg.url,
        SERVICE_DATA_DIR: `${dataDir}/instance${i}`,
        SERVICE_DATASOURCE_TYPE: "s3",
        SERVICE_DATASOURCE_S3_ENDPOINT: gate.origin,
        SERVICE_DATASOURCE_S3_BUCKET: bucketName,
        SERVICE_DATASOURCE_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        SERVICE_DATASOURCE_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        SERVICE_DATASOURCE_S3_FORCE_PATH_STYLE: "true",
      })
    );
    cleanups.push(() => Promise.all(instances.map((i) => i.stop())));
    const mount = await mountTmpfs(`${dataDir}/disk`, 24);
    cleanups.push(() => mount?.unmount());
    const diskInstance = mount
      ? new Instance("disk instance", {
        ...common,
        DATABASE_URL: pg.url.replace(/\/postgres$/, "/ferry_disk"),
        SERVICE_DATA_DIR: `${dataDir}/disk-instance`,
        SERVICE_DATASOURCE_TYPE: "local",
        SERVICE_DATASOURCE_LOCAL_DIRECTORY: mount.path,
      })
      : null;
    cleanups.push(() => diskInstance?.stop());
    // The first one migrates the database; the others start on it together.
    await instances[0].start();
    await Promise.all([...instances.slice(1), ...(diskInstance ? [diskInstance] : [])]
      .map((i) => i.start()));
    log(`instances up after ${((Date.now() - began) / 1000).toFixed(1)} s`);

    const balancer = startBalancer(instances.map((i) => i.origin));
    cleanups.push(() => balancer.close());

    const recorder = new Recorder(began);
    // Memory samples fall in the recorder's phases while the load runs.
    let stage: string | null = "set-up";
    for (const instance of [...instances, ...(diskInstance ? [diskInstance] : [])]) {
      instance.phase = () => stage ?? recorder.phase;
    }
    const store = await openPostgresStore(pg.url, { max: 2 });
    cleanups.push(() => store.close());
    const tokenOf = async (username: string) => {
      const user = await store.users.getByUsername(username);
      return clientToken(user!.token, Date.now(), SECRET, systemRandom);
    };

    // Setup: a SUPERADMIN, then users made through the API.
    const anonymous = new Client(balancer.origin, recorder);
    const setup = await anonymous.send("setup", "POST", "/api/setup", {
      json: { username: "admin", password: "soak-admin-pw" },
    });
    if (setup.status !== 200) throw new Error(`setup answered ${setup.status}`);
    const adminClient = new Client(balancer.origin, recorder, {
      authorization: await tokenOf("admin"),
    });
    const makeUser = async (username: string) => {
      const made = await adminClient.send("user creation", "POST", "/api/users", {
        json: { username, password: `${username}-password`, role: "USER" },
      });
      if (made.status !== 200) throw new Error(`creating ${username}: ${made.status}`);
      return made.body.id as string;
    };
    const loadUsers = ["alice", "bob", "carol", "dave"];
    for (const name of [...loadUsers, "tight", "probe", "chunker", "meter"]) {
      await makeUser(name);
    }
    const tightId = (await store.users.getByUsername("tight"))!.id;
    const quota = await adminClient.send("quota", "PATCH", `/api/users/${tightId}`, {
      json: { quota: { filesType: "BY_BYTES", maxBytes: `${QUOTA_BYTES}b` } },
    });
    if (quota.status !== 200) {
      throw new Error(`quota: ${quota.status} ${JSON.stringify(quota.body)}`);
    }
    const clientOf = async (name: string, origin = balancer.origin) =>
      new Client(origin, recorder, { authorization: await tokenOf(name) });

    // What each kind of request costs PostgreSQL, measured before the load.
    const meter = await clientOf("meter");
    const metered = await uploadSmall(meter, 1024);
    const link = await meter.send("shorten", "POST", "/api/user/urls", {
      json: { destination: "https://example.com/metered" },
    });
    const queryCosts = options.measureQueries && metered && link.status === 200
      ? await measureQueries(monitor, [
        { kind: "GET /api/user (token)", send: () => meter.send("metered", "GET", "/api/user") },
        { kind: "POST /api/upload (1 KiB)", send: () => uploadSmall(meter, 1024) },
        {
          kind: "GET /raw/<name> (1 KiB)",
          send: () => meter.send("metered", "GET", `/raw/${metered.name}`, { raw: true }),
        },
        {
          kind: "GET /raw/<name> with Range",
          send: () =>
            meter.send("metered", "GET", `/raw/${metered.name}`, {
              raw: true,
              headers: { range: "bytes=10-99" },
            }),
        },
        {
          kind: "POST /api/user/urls",
          send: () =>
            meter.send("metered", "POST", "/api/user/urls", {
              json: { destination: "https://example.com/m" },
            }),
        },
        {
          kind: "GET /go/<code> (302)",
          send: () => meter.send("metered", "GET", `/go/${link.body.code}`, { raw: true }),
        },
        {
          kind: "GET /api/user/files?page=1",
          send: () => meter.send("metered", "GET", "/api/user/files?page=1"),
        },
      ], 20)
      : [];
    log(`${recorder.at()}: query costs measured`);
    let peakConnections = 0;
    const sampling = setInterval(() => {
      ferryConnections(monitor).then((n) => peakConnections = Math.max(peakConnections, n))
        .catch(() => {}); // postgres is down
    }, 1000);
    cleanups.push(() => clearInterval(sampling));

    let stopped = false;
    const isStopped = () => stopped;
    let made = 0;

    // The small-request mix.
    const worker = async (client: Client) => {
      while (!stopped) {
        const roll = Math.random();
        const mine = recorder.accepted;
        if (roll < 0.35 || mine.length === 0) {
          const big = Math.random() < 0.05;
          await uploadSmall(client, 1 + Math.floor(Math.random() * (big ? 4e6 : 256e3)));
        } else if (roll < 0.6) {
          await downloadRange(client, mine[Math.floor(Math.random() * mine.length)]);
        } else if (roll < 0.75) {
          await shortenAndVisit(client, made++);
        } else if (roll < 0.82) {
          await anonymous.send("login", "POST", "/api/auth/login", {
            json: { username: "alice", password: "alice-password" },
          });
        } else if (roll < 0.92) {
          const file = await uploadSmall(client, 1 + Math.floor(Math.random() * 64e3), "s3cret");
          if (file) await passwordAccess(client, file);
        } else if (roll < 0.95) {
          await adminClient.send("user creation", "POST", "/api/users", {
            json: { username: `soak${made++}`, password: "pw-pw-pw", role: "USER" },
          });
        } else {
          await client.send("list files", "GET", "/api/user/files?page=1");
        }
      }
    };
    const tightWorker = async (client: Client) => {
      while (!stopped) await uploadSmall(client, 200e3 + Math.floor(Math.random() * 800e3));
    };
    const chunkWorker = async (client: Client) => {
      const [min, max] = options.chunkedMib;
      while (!stopped) {
        const mib = min + Math.random() * (max - min);
        await uploadChunked(client, Math.floor(mib * 1024 * 1024), isStopped);
      }
    };
    const loadStart = Date.now();
    stage = null;
    const load: Promise<void>[] = [];
    for (let i = 0; i < options.workers; i++) {
      load.push(worker(await clientOf(loadUsers[i % loadUsers.length])));
    }
    const tight = await clientOf("tight");
    load.push(tightWorker(tight), tightWorker(tight));
    load.push(chunkWorker(await clientOf("chunker")));

    // The schedule.
    const faults: FaultRecord[] = [];
    const settingsLagMs: [number, number][] = [];
    const rateProbes: SoakResult["rateProbes"] = [];
    const probe = await clientOf("probe");
    const adminToken = await tokenOf("admin");
    const direct = instances.map((i) =>
      new Client(i.origin, recorder, { authorization: adminToken })
    );
    const until = (fraction: number) =>
      sleep(Math.max(0, loadStart + options.durationMs * fraction - Date.now()));
    const fault = (name: string) => {
      const record: FaultRecord = { name, at: recorder.at(), observed: [] };
      faults.push(record);
      recorder.phase = name;
      log(`${record.at}: ${name}`);
      return record;
    };

    const settingsCheck = async (n: number) => {
      const title = `Soak ${n}`;
      const changed = await direct[n % 3].send("settings change", "PATCH", "/api/server/settings", {
        json: { websiteTitle: title },
      });
      if (changed.status !== 200) {
        recorder.problem(`settings change answered ${changed.status}`);
        return;
      }
      // When an instance took the change is known between two times: after the last request
      // that did not see it was sent, and before the first that saw it was answered. On a
      // loaded machine the two lie far apart (requests wait for the CPU): a change is late
      // for certain when the first bound passes 2 s.
      const start = Date.now();
      const lags = await Promise.all(direct.map(async (client) => {
        let missed = 0;
        while (Date.now() - start < 10_000) {
          const sent = Date.now() - start;
          const seen = await client.send("settings read", "GET", "/api/server/settings");
          if (seen.body?.settings?.websiteTitle === title) return [missed, Date.now() - start];
          missed = sent;
          await sleep(50);
        }
        return [missed, Infinity];
      }));
      const after = Math.max(...lags.map(([missed]) => missed));
      const before = Math.max(...lags.map(([, answered]) => answered));
      settingsLagMs.push([after, before]);
      if (after > 2000) {
        recorder.problem(`settings change ${n} had not reached an instance ${after} ms later`);
      }
    };

    const rateProbe = async () => {
      // Start just after a window begins, so the burst cannot straddle two.
      await sleep(RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS) + 100);
      const sent = RATE_MAX + 10;
      const replies = await Promise.all(
        Array.from({ length: sent }, () => probe.send("rate-limit probe", "GET", "/api/user")),
      );
      const ok = replies.filter((r) => r.status === 200).length;
      const limited = replies.filter((r) => r.status === 429).length;
      const failed = sent - ok - limited;
      // On a loaded machine a request sent in one window may be counted in the next: each
      // answer names the window that counted it (X-RateLimit-Reset), and each window is checked.
      const byWindow = new Map<string, number>();
      for (const reply of replies) {
        const window = reply.headers.get("x-ratelimit-reset");
        if (reply.status === 200 && window) byWindow.set(window, (byWindow.get(window) ?? 0) + 1);
      }
      rateProbes.push({ ok, limited, failed, sent, allowedPerWindow: [...byWindow.values()] });
      for (const allowed of byWindow.values()) {
        if (allowed > RATE_MAX) {
          recorder.problem(
            `rate limit: ${allowed} of ${sent} allowed in one window (max ${RATE_MAX})`,
          );
        }
      }
      if (failed === 0 && byWindow.size === 1 && ok !== RATE_MAX) {
        recorder.problem(`rate limit: ${ok} of ${sent} allowed in one window (max ${RATE_MAX})`);
      }
    };

    const schedule = async () => {
      await until(0.05);
      const disk = diskPhase();
      await Promise.all([settingsCheck(0), rateProbe()]);

      await until(0.12);
      const kill = fault("instance 1 killed");
      await instances[1].kill();
      await sleep(2000);
      await instances[1].start();
      kill.observed.push(`instance 1 answered its healthcheck again at ${recorder.at()}`);
      recorder.phase = "steady";
      await rateProbe();

      await until(0.3);
      await disk; // it needs the database too
      const pgDown = fault("postgres down");
      await pg.halt();
      const downAt = Date.now();
      await Promise.all(direct.map(async (client, i) => {
        const reply = await client.send(
          "store needed (postgres down)",
          "GET",
          "/api/user",
          {},
          10_000,
        );
        const health = await client.send("healthcheck (postgres down)", "GET", "/api/healthcheck");
        pgDown.observed.push(
          `instance ${i}: GET /api/user ${reply.status} in ${Math.round(reply.ms)} ms ${
            JSON.stringify(reply.body)
          }; healthcheck ${health.status} in ${Math.round(health.ms)} ms`,
        );
        const body = reply.body ?? {};
        if (reply.status !== 503 || body.statusCode !== 503 || typeof body.error !== "string") {
          recorder.problem(
            `with postgres down, instance ${i} answered ${reply.status} ${JSON.stringify(body)}`,
          );
        }
        if (reply.ms > 5000) {
          recorder.problem(`with postgres down, instance ${i} took ${reply.ms} ms`);
        }
        if (health.status === 200) {
          recorder.problem(`instance ${i} said healthy with postgres down`);
        }
      }));
      await sleep(Math.max(0, 5000 - (Date.now() - downAt)));
      await pg.resume();
      const upAt = Date.now();
      const recovered = await Promise.all(instances.map(async (instance) => {
        while (Date.now() - upAt < 30_000) {
          if (await healthy(instance.origin)) return Date.now() - upAt;
          await sleep(100);
        }
        return Infinity;
      }));
      pgDown.observed.push(
        `down ${((upAt - downAt) / 1000).toFixed(1)} s; healthchecks 200 again after ${
          recovered.map((ms) => `${ms} ms`).join(", ")
        }`,
      );
      if (recovered.some((ms) => ms === Infinity)) {
        recorder.problem("an instance's healthcheck did not recover within 30 s of postgres");
      }
      recorder.phase = "steady";
      await settingsCheck(1);
      await rateProbe();

      await until(0.45);
      const imported = fault("v4 import");
      const importReply = await adminClient.send("import v4", "POST", "/api/server/import/v4", {
        body: readFixture(),
        headers: { "content-type": "application/json" },
      }, 60_000);
      imported.observed.push(`answered ${importReply.status} in ${Math.round(importReply.ms)} ms`);
      if (importReply.status !== 200) {
        recorder.problem(`v4 import answered ${importReply.status}`);
      }
      recorder.phase = "steady";

      await until(0.55);
      const s3Down = fault("s3 unreachable");
      gate.shut();
      const upload = await tight.send("upload (s3 down)", "POST", "/api/upload", {
        body: (() => {
          const form = new FormData();
          form.append("file", new Blob(["during the outage"]), "outage.txt");
          return form;
        })(),
      }, 15_000);
      s3Down.observed.push(
        `an upload answered ${upload.status} in ${Math.round(upload.ms)} ms ${
          JSON.stringify(upload.body)
        }`,
      );
      if (upload.status === 0) recorder.problem("an upload hung while s3 was unreachable");
      await sleep(10_000 - upload.ms);
      gate.open();
      recorder.phase = "steady";

      await until(0.7);
      await settingsCheck(2);
    };
    // The full disk is another instance's: it runs beside the first faults above (its
    // requests are told apart by their kind, not by the phase).
    const diskPhase = async () => {
      if (!diskInstance) return;
      const disk: FaultRecord = { name: "disk full", at: recorder.at(), observed: [] };
      const client = new Client(diskInstance.origin, recorder);
      diskResult = await fillDisk(
        client,
        recorder,
        mount!.path,
        pg.url.replace(/\/postgres$/, "/ferry_disk"),
      );
      disk.observed.push(...diskResult.observed);
      faults.push(disk);
    };
    let diskResult: DiskResult | null = null;
    await schedule();
    await until(1);
    stopped = true;
    log(`${recorder.at()}: load stopped; waiting for requests in flight`);
    await Promise.all(load);
    stage = "after the load (checks)";
    // Every chunked upload stopped by the end either finished or stays resumable.
    log(`${recorder.at()}: checking the store and the bucket`);
    const datasource = new S3Datasource({
      endpoint: s3.endpoint,
      region: "us-east-1",
      bucket: bucketName,
      forcePathStyle: true,
      ...S3RVER_CREDENTIALS,
    });
    cleanups.push(() => datasource.close());
    const importedNames = new Set<string>(
      JSON.parse(readFixture()).data.files.map((f: { name: string }) => f.name),
    );
    const checked = await checkEverything(
      recorder,
      store,
      datasource,
      { client: s3Client, name: bucketName },
      importedNames,
      [{ id: tightId, maxBytes: QUOTA_BYTES }],
    );
    const peakRssMib: Record<string, number> = {};
    const memory: SoakResult["memory"] = {};
    const logged: SoakResult["logged"] = {};
    for (const instance of [...instances, ...(diskInstance ? [diskInstance] : [])]) {
      peakRssMib[instance.name] = instance.peakRssMib;
      memory[instance.name] = instance.memory;
      logged[instance.name] = [...instance.logged.entries()];
    }
    if (!mount) recorder.note("no tmpfs could be mounted here: the disk-full phase did not run");
    return {
      options,
      recorder,
      faults,
      checked,
      disk: diskResult,
      settingsLagMs,
      queryCosts,
      peakConnections,
      rateProbes,
      peakRssMib,
      memory,
      logged,
      served: balancer.served,
      wallMs: Date.now() - began,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // best effort: the rest must still be stopped
      }
    }
  }
}

/** The v4 export the soak imports halfway. */
function readFixture(): string {
  return Deno.readTextFileSync(
    new URL("../../fixtures/zipline-v4-export.sample.json", import.meta.url),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
