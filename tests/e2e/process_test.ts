/**
 * The real process, started the way the README starts it (`deno task start`
 * in the repository), on Deno KV and on PostgreSQL; and the operator CLI.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runDeno, type ServerProcess, startServer } from "../helpers/process.ts";
import {
  fileRecord,
  freshDatabase,
  ignoreKind,
  openTestStore,
  STORE_KINDS,
  type StoreKind,
  userRecord,
} from "../helpers/stores.ts";
import { clientToken, newStoredToken } from "../../core/tokens.ts";
import { newId, systemRandom } from "../../core/clock.ts";
import { eventually } from "../helpers/wait.ts";

const GENERATED = "SERVICE_SECRET is not set: generated one and kept it";
const TEST = { sanitizeResources: false, sanitizeOps: false };

/** Runs `fn` with a fresh temp data dir, removed afterwards. */
async function withDataDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-e2e-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `fn` on a server started with `env`, stopping the server afterwards whatever happens. */
async function withServer(
  env: Record<string, string>,
  fn: (server: ServerProcess) => Promise<void>,
): Promise<void> {
  const server = await startServer({ env });
  try {
    await fn(server);
  } finally {
    await server.stop();
  }
}

/** Checks the healthcheck, then runs first setup and checks it closed. */
async function healthAndSetup(server: ServerProcess): Promise<void> {
  assert.deepEqual(await server.json("GET", "/api/healthcheck"), {
    status: 200,
    body: { pass: true },
  });
  assert.deepEqual((await server.json("GET", "/api/setup")).body, { firstSetup: true });
  const setup = await server.json("POST", "/api/setup", {
    username: "admin",
    password: "password1",
  });
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  assert.equal(setup.body.user.role, "SUPERADMIN");
  assert.deepEqual((await server.json("GET", "/api/setup")).body, { firstSetup: false });
}

/** Signs the admin of {@link healthAndSetup} in; resolves with the session cookie. */
async function adminCookie(server: ServerProcess): Promise<string> {
  const login = await fetch(`${server.origin}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "password1" }),
  });
  await login.body?.cancel();
  return login.headers.getSetCookie()[0].split(";")[0];
}

/** Sends SIGTERM and checks the server stops cleanly within a few seconds. */
async function stopCleanly(server: ServerProcess): Promise<void> {
  const status = await server.stop("SIGTERM", 5_000);
  assert.equal(status.code, 0, server.output());
  assert.match(server.output(), /INFO stopped/);
}

Deno.test({
  name: "e2e: deno task start serves on KV, keeps a 0600 secret, stops on SIGTERM, restarts",
  ...TEST,
  fn: () =>
    withDataDir(async (dir) => {
      const secretPath = join(dir, "secret");
      const env = { SERVICE_DATA_DIR: dir };
      await withServer(env, async (server) => {
        await healthAndSetup(server);
        assert.equal((await Deno.stat(secretPath)).mode! & 0o777, 0o600);
        assert.ok(server.output().includes(GENERATED), server.output());
        assert.match(server.output(), /listening .*store=kv datasource=local/);
        await stopCleanly(server);
      });
      const secret = await Deno.readTextFile(secretPath);

      await withServer(env, async (server) => {
        assert.deepEqual((await server.json("GET", "/api/setup")).body, { firstSetup: false });
        assert.ok(!server.output().includes(GENERATED), server.output());
        await stopCleanly(server);
      });
      assert.equal(await Deno.readTextFile(secretPath), secret);
    }),
});

Deno.test({
  name: "e2e: an upload stopped between its commit and its bytes' move is whole after a restart",
  ...TEST,
  fn: () =>
    withDataDir(async (dir) => {
      const env = { SERVICE_DATA_DIR: dir };
      let file = { id: "", name: "" };
      await withServer(env, async (server) => {
        await healthAndSetup(server);
        const cookie = await adminCookie(server);
        const form = new FormData();
        form.append("file", new Blob(["bytes that must survive"]), "survive.txt");
        const sent = await fetch(`${server.origin}/api/upload`, {
          method: "POST",
          headers: { cookie },
          body: form,
        });
        assert.equal(sent.status, 200);
        file = (await sent.json()).files[0];
        await stopCleanly(server);
      });
      // What a stop right after the record's commit leaves: the bytes still staged under the id.
      const uploads = join(dir, "uploads");
      await Deno.rename(join(uploads, file.name), join(uploads, ".tmp", `upload-${file.id}`));

      await withServer(env, async (server) => {
        const raw = await fetch(`${server.origin}/raw/${file.name}`);
        assert.equal(raw.status, 200);
        assert.equal(await raw.text(), "bytes that must survive");
        assert.match(server.output(), /published the bytes of an upload stopped after its commit/);
        assert.deepEqual([...Deno.readDirSync(join(uploads, ".tmp"))], []);
        await stopCleanly(server);
      });
    }),
});

Deno.test({
  name:
    "e2e: a token the operator CLI replaces while the server runs stops working within a second",
  ...TEST,
  fn: () =>
    withDataDir(async (dir) => {
      const env = { SERVICE_DATA_DIR: dir };
      await withServer(env, async (server) => {
        await healthAndSetup(server);
        const asked = await fetch(`${server.origin}/api/user/token`, {
          headers: { cookie: await adminCookie(server) },
        });
        const { token } = await asked.json();
        const me = async () => {
          const answer = await fetch(`${server.origin}/api/user`, {
            headers: { authorization: token },
          });
          await answer.body?.cancel();
          return answer.status;
        };
        assert.equal(await me(), 200);
        const reset = await runDeno(
          [
            "task",
            "cli",
            "user",
            "reset-password",
            "--username",
            "admin",
            "--password",
            "password2",
          ],
          { env },
        );
        assert.equal(reset.code, 0, reset.output);
        // The server read the user a moment ago: its cached record may answer for up to a second.
        await eventually("the old token refused", async () => await me() === 401, 2_000);
        await stopCleanly(server);
      });
    }),
});

Deno.test({
  name: "e2e: deno task start serves on PostgreSQL when DATABASE_URL is set",
  ignore: ignoreKind("postgres"),
  ...TEST,
  fn: () =>
    withDataDir(async (dir) => {
      const db = await freshDatabase();
      try {
        await withServer({ SERVICE_DATA_DIR: dir, DATABASE_URL: db.url }, async (server) => {
          assert.match(server.output(), /listening .*store=postgres/);
          await healthAndSetup(server);
          await stopCleanly(server);
        });
      } finally {
        await db.drop();
      }
    }),
});

Deno.test({
  name: "e2e: a bad SERVICE_PORT exits 1 with a message naming it",
  ...TEST,
  fn: () =>
    withDataDir(async (dir) => {
      const { code, output } = await runDeno(["task", "start"], {
        env: { SERVICE_PORT: "abc", SERVICE_DATA_DIR: dir },
      });
      assert.equal(code, 1, output);
      assert.match(output, /configuration error: SERVICE_PORT/);
    }),
});

Deno.test({
  name: "e2e: the operator CLI creates a user, resets its password and migrates",
  ...TEST,
  fn: () =>
    withDataDir(async (dir) => {
      const env = { SERVICE_DATA_DIR: dir };
      const cli = async (args: string[], expected: RegExp) => {
        const { code, output } = await runDeno(["task", ...args], { env });
        assert.equal(code, 0, output);
        assert.match(output, expected);
      };
      await cli(
        ["cli", "user", "create", "--username", "op", "--password", "password1", "--role", "ADMIN"],
        /created ADMIN op/,
      );
      await cli(
        ["cli", "user", "reset-password", "--username", "op", "--password", "password2"],
        /password of op reset/,
      );
      await cli(["migrate"], /kv store is at schema version \d+/);

      await withServer(env, async (server) => {
        assert.deepEqual((await server.json("GET", "/api/setup")).body, { firstSetup: false });
      });
    }),
});

for (const kind of STORE_KINDS) {
  Deno.test({
    name:
      `e2e: a server at work over 5,000 files (tasks going through them, a request in flight) exits within 5 s of SIGTERM: ${kind}`,
    ignore: ignoreKind(kind),
    ...TEST,
    fn: () => withDataDir((dir) => busyServerStops(kind, dir)),
  });
}

/** {@link Deno.test} of a server at work over 5,000 files on `kind`, stopped by SIGTERM. */
async function busyServerStops(kind: StoreKind, dir: string): Promise<void> {
  const { store, url, drop } = await openTestStore(kind, join(dir, "ferry.kv"));
  try {
    const id = newId(systemRandom, Date.now());
    const user = userRecord("busy", { id, token: newStoredToken(Date.now(), systemRandom, id) });
    await store.users.create(user);
    const at = new Date(Date.now() - 1000);
    for (let run = 0; run < 5; run++) {
      // Every tenth expired, every tenth past its views: the cleaning tasks' first pass removes them.
      await store.files.createMany(Array.from({ length: 1000 }, (_, i) =>
        fileRecord(user.id, {
          type: "image/png",
          deletesAt: i % 10 === 0 ? at : null,
          maxViews: i % 10 === 1 ? 1 : null,
          views: i % 10 === 1 ? 1 : 0,
        })));
    }
    await store.close();
    const secret = "ferry-e2e-secret-ferry-e2e-secret-ferry-e2e-secret-0123456789ab";
    const env = {
      SERVICE_DATA_DIR: dir,
      SERVICE_SECRET: secret,
      SERVICE_FEATURES_DELETE_ON_MAX_VIEWS: "true",
      ...(url ? { DATABASE_URL: url } : {}),
    };
    await withServer(env, async (server) => {
      // Started with the server: the tasks' first pass (thumbnails for 5,000 images, …).
      const token = clientToken(user.token, Date.now(), secret, systemRandom);
      // Connected and sent before the signal: the request is the server's to answer.
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: Number(new URL(server.origin).port),
      });
      await conn.write(new TextEncoder().encode(
        "GET /api/user/files?page=1&sortBy=size HTTP/1.1\r\nHost: ferry\r\n" +
          `Authorization: ${token}\r\nConnection: close\r\n\r\n`,
      ));
      const inFlight = new Response(conn.readable).text();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const asked = Date.now();
      await stopCleanly(server);
      assert.ok(Date.now() - asked < 5_000, `${Date.now() - asked} ms`);
      const answer = await inFlight;
      assert.match(answer, /^HTTP\/1\.1 200 /, "the request in flight was answered");
      assert.match(answer, /"total":\d+/);
    });
  } finally {
    await drop();
  }
}
