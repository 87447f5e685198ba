/**
 * Webhooks with a real local receiver: headers, bodies, signatures, templates,
 * nothing sent unconfigured, retries until one success, and a pending delivery
 * surviving a restart of the worker.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { queueShorten, queueUpload } from "../../core/webhooks/outbox.ts";
import type { Resolver } from "../../core/net/outbound.ts";
import type { ShortenEvent, UploadEvent } from "../../core/webhooks/payloads.ts";
import { webhookSecret } from "../../core/webhooks/signature.ts";
import { RETRY_DELAYS_MS, WebhookWorker } from "../../core/webhooks/worker.ts";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { type Received, startReceiver } from "../helpers/receiver.ts";
import { uploadFiles } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";
import { eventually } from "../helpers/wait.ts";

const created = new Date("2026-11-22T10:00:00.000Z");

async function uploadEvent(app: TestApp): Promise<UploadEvent> {
  const { user } = await actor(app, "USER", "uploader");
  return {
    user,
    file: {
      id: "f1",
      name: "cat.png",
      originalName: "my cat.png",
      size: 1234,
      type: "image/png",
      createdAt: created,
      views: 0,
      favorite: false,
    },
    link: { raw: "https://ferry.example/raw/cat.png" },
  };
}

const shortenEvent = (user: ShortenEvent["user"]): ShortenEvent => ({
  user,
  url: {
    id: "u1",
    code: "abc123",
    destination: "https://example.org/x",
    views: 0,
    createdAt: created,
  },
  link: { raw: "https://ferry.example/go/abc123" },
});

/**
 * Writes `values`, with the allow-list admitting 127.0.0.1 (where the local
 * receivers listen) unless `values` sets it: what an operator testing
 * webhooks against a local receiver does.
 */
async function configure(app: TestApp, values: Record<string, unknown>) {
  await app.services.store.settings.update({ webhooksAllowedHosts: ["127.0.0.1"], ...values });
  await app.services.settings.reload();
}

/** Every key anywhere in `value`. */
function keys(value: unknown): string[] {
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => [k, ...keys(v)]);
}

apiTest("HTTP webhooks: the spec's headers and bodies, signed, nothing secret", async (app) => {
  const receiver = startReceiver();
  try {
    await configure(app, { httpWebhookOnUpload: receiver.url, httpWebhookOnShorten: receiver.url });
    const upload = await uploadEvent(app);
    await queueUpload(app.services, upload);
    await queueShorten(app.services, shortenEvent(upload.user));
    assert.equal(receiver.received.length, 0, "queued, not sent inline");
    assert.equal(await new WebhookWorker(app.services).runOnce(), 2);
    assert.equal(receiver.received.length, 2);

    const byType: Record<string, Received> = Object.fromEntries(
      receiver.received.map((r) => [r.headers.get("x-service-webhook-type"), r]),
    );
    for (const [type, r] of Object.entries(byType)) {
      assert.equal(r.method, "POST");
      assert.equal(r.headers.get("content-type"), "application/json");
      assert.equal(r.headers.get("x-service-webhook"), "true");
      const timestamp = r.headers.get("x-service-webhook-timestamp")!;
      const expected = "sha256=" +
        createHmac("sha256", webhookSecret(app.services.secret)).update(`${timestamp}.${r.body}`)
          .digest("hex");
      assert.equal(r.headers.get("x-service-signature"), expected, type);
      const body = JSON.parse(r.body);
      for (const secret of ["password", "token", "totpSecret", "passkeys", "oauthProviders"]) {
        assert.ok(!keys(body).includes(secret), `${type} carries ${secret}`);
      }
      const user = await app.services.store.users.get(upload.user.id);
      assert.ok(!r.body.includes(user!.password!) && !r.body.includes(user!.token));
    }
    assert.deepEqual(JSON.parse(byType.upload.body), {
      type: "upload",
      data: {
        user: {
          id: upload.user.id,
          username: "uploader",
          role: "USER",
          avatar: null,
          createdAt: upload.user.createdAt.toISOString(),
        },
        file: {
          id: "f1",
          name: "cat.png",
          originalName: "my cat.png",
          size: 1234,
          type: "image/png",
          createdAt: created.toISOString(),
          views: 0,
          favorite: false,
        },
        link: { raw: "https://ferry.example/raw/cat.png" },
      },
    });
    assert.deepEqual(JSON.parse(byType.shorten.body), {
      type: "shorten",
      data: {
        user: { id: upload.user.id, username: "uploader", role: "USER" },
        url: {
          id: "u1",
          code: "abc123",
          destination: "https://example.org/x",
          views: 0,
          createdAt: created.toISOString(),
        },
        link: { raw: "https://ferry.example/go/abc123" },
      },
    });
    assert.equal(await app.services.store.webhooks.pending(), 0);
  } finally {
    await receiver.close();
  }
});

/** Runs the worker once `count` deliveries are queued (an upload queues them unawaited). */
async function deliverQueued(app: TestApp, count: number) {
  await eventually(
    `${count} queued deliveries`,
    async () => await app.services.store.webhooks.pending() >= count,
  );
  return await new WebhookWorker(app.services).runOnce();
}

/** The parsed HTTP (upload) and chat bodies among `received`. */
function bodiesOf(received: Received[]) {
  return ["upload", null].map((type) =>
    JSON.parse(received.find((r) => r.headers.get("x-service-webhook-type") === type)!.body)
  );
}

apiTest("uploads into an open folder name who sent them, never the folder's owner", async (app) => {
  const receiver = startReceiver();
  try {
    await configure(app, {
      httpWebhookOnUpload: receiver.url,
      chatOnUploadWebhookUrl: receiver.url,
      chatOnUploadContent: "{user.username} ({user.id}) sent {file.name}",
    });
    const owner = await actor(app, "USER", "owner");
    const guest = await actor(app, "USER", "guest");
    const drop = await app.json("POST", "/api/user/folders", { name: "drop" }, owner.headers);
    await app.json(
      "PATCH",
      `/api/user/folders/${drop.body.id}`,
      { allowUploads: true },
      owner.headers,
    );
    const file = [{ name: "a.txt", content: "x" }];
    const anon = await uploadFiles(app, file, { "x-service-folder": drop.body.id });
    assert.equal(anon.status, 200);
    assert.equal(await deliverQueued(app, 2), 2);
    const [http, chat] = bodiesOf(receiver.received);
    const stored = await app.services.store.files.get(anon.body.files[0].id);
    assert.deepEqual(http.data.user, {
      id: "anonymous",
      username: "anonymous",
      role: "USER",
      avatar: null,
      createdAt: stored!.createdAt.toISOString(),
    });
    assert.equal(http.data.file.id, stored!.id);
    assert.equal(chat.content, `anonymous (anonymous) sent ${stored!.name}`);
    const ownerRecord = (await app.services.store.users.get(owner.user.id))!;
    for (const r of receiver.received) {
      assert.ok(!r.body.includes(ownerRecord.id) && !r.body.includes("owner"), r.body);
      assert.ok(!r.body.includes(ownerRecord.token));
    }

    // A signed-in stranger uploading into the open folder is named as itself.
    const byGuest = await uploadFiles(app, file, {
      ...guest.headers,
      "x-service-folder": drop.body.id,
    });
    assert.equal(byGuest.status, 200);
    assert.equal(await deliverQueued(app, 2), 2);
    const [guestHttp, guestChat] = bodiesOf(receiver.received.slice(2));
    assert.deepEqual([guestHttp.data.user.id, guestHttp.data.user.username], [
      guest.user.id,
      "guest",
    ]);
    assert.match(guestChat.content, /^guest \(/);
  } finally {
    await receiver.close();
  }
});

apiTest("nothing is sent when no webhook is configured", async (app) => {
  const upload = await uploadEvent(app);
  await configure(app, { chatWebhookUrl: "http://127.0.0.1:9/only-global" });
  await queueUpload(app.services, upload);
  await queueShorten(app.services, shortenEvent(upload.user));
  assert.equal(await app.services.store.webhooks.pending(), 0);
});

apiTest("chat webhooks: per-event config, URL fallback, templates and embeds", async (app) => {
  const receiver = startReceiver();
  try {
    await configure(app, {
      chatWebhookUrl: receiver.url,
      chatUsername: "Ferry",
      chatOnUploadContent:
        "{user.username} uploaded {file.name} ({file.size} bytes, {file.type}) " +
        "{link.raw} {nope.nothing}",
      chatOnUploadEmbed: {
        title: "New file {file.name}",
        description: "by {user.id}",
        color: "#abc",
        footer: "{url.code}",
        timestamp: true,
        thumbnail: true,
        imageOrVideo: true,
      },
      chatOnShortenUsername: "Shortener",
      chatOnShortenContent: "{url.destination} → {url.code} {file.name}",
    });
    const upload = await uploadEvent(app);
    await queueUpload(app.services, upload);
    await queueShorten(app.services, shortenEvent(upload.user));
    await new WebhookWorker(app.services).runOnce();
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    const [up] = bodies.filter((b) => b.embeds.length === 1);
    const [short] = bodies.filter((b) => b.embeds.length === 0);
    assert.deepEqual(up, {
      username: "Ferry",
      avatar_url: null,
      content: `uploader uploaded cat.png (1234 bytes, image/png) ` +
        `https://ferry.example/raw/cat.png {nope.nothing}`,
      embeds: [{
        title: "New file cat.png",
        description: `by ${upload.user.id}`,
        color: 0xaabbcc,
        footer: { text: "{url.code}" },
        timestamp: created.toISOString(),
        image: { url: "https://ferry.example/raw/cat.png" },
        thumbnail: { url: "https://ferry.example/raw/cat.png" },
      }],
    });
    assert.deepEqual(short, {
      username: "Shortener",
      avatar_url: null,
      content: "https://example.org/x → abc123 {file.name}",
      embeds: [],
    });
    for (const r of receiver.received) {
      assert.equal(r.headers.get("content-type"), "application/json");
    }
  } finally {
    await receiver.close();
  }
});

apiTest("a receiver that fails twice then succeeds gets exactly one success", async (app) => {
  const receiver = startReceiver((n) => (n < 2 ? 503 : 204));
  try {
    await configure(app, { httpWebhookOnUpload: receiver.url });
    await queueUpload(app.services, await uploadEvent(app));
    const worker = new WebhookWorker(app.services);
    await worker.runOnce();
    assert.equal(await worker.runOnce(), 0, "not due before its backoff");
    app.clock.advance(RETRY_DELAYS_MS[0]);
    await worker.runOnce();
    app.clock.advance(RETRY_DELAYS_MS[1]);
    await worker.runOnce();
    app.clock.advance(RETRY_DELAYS_MS[2]);
    assert.equal(await worker.runOnce(), 0);
    assert.equal(receiver.received.length, 3);
    assert.equal(await app.services.store.webhooks.pending(), 0);
    const warnings = app.logger.lines.filter((l) =>
      l.message.startsWith("webhook delivery failed")
    );
    assert.equal(warnings.length, 2);
    assert.equal(warnings[0].fields?.target, receiver.url);
    assert.equal(warnings[0].fields?.error, "HTTP 503");
  } finally {
    await receiver.close();
  }
});

apiTest("a 4xx is final; an unreachable target is retried", async (app) => {
  const receiver = startReceiver(() => 410);
  try {
    await configure(app, {
      httpWebhookOnUpload: receiver.url,
      httpWebhookOnShorten: "http://127.0.0.1:9/closed",
    });
    const upload = await uploadEvent(app);
    await queueUpload(app.services, upload);
    await queueShorten(app.services, shortenEvent(upload.user));
    await new WebhookWorker(app.services).runOnce();
    assert.equal(receiver.received.length, 1);
    assert.equal(await app.services.store.webhooks.pending(), 1, "the unreachable one waits");
    assert.ok(app.logger.lines.some((l) => l.message === "webhook delivery failed for good"));
    const root = await actor(app, "SUPERADMIN");
    const history = await app.json("GET", "/api/server/webhooks/history", undefined, root.headers);
    assert.deepEqual(
      history.body.map((f: { url: string; status: string; attempts: number; result: string }) => [
        f.url,
        f.status,
        f.attempts,
        f.result,
      ]),
      [[receiver.url, "failed", 1, "HTTP 410"]],
    );
  } finally {
    await receiver.close();
  }
});

apiTest("a pending delivery survives a restart of the worker", async (app) => {
  const receiver = startReceiver();
  try {
    await configure(app, { httpWebhookOnUpload: receiver.url });
    await queueUpload(app.services, await uploadEvent(app));
    // The process that queued it stops before sending; a new one starts on the same store.
    const restarted = new WebhookWorker(app.services);
    await restarted.runOnce();
    assert.equal(receiver.received.length, 1);
    assert.equal(JSON.parse(receiver.received[0].body).type, "upload");
  } finally {
    await receiver.close();
  }
});

apiTest("GET /api/server/webhooks: the signing secret, for SUPERADMINs only", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const admin = await actor(app, "ADMIN");
  const res = await app.json("GET", "/api/server/webhooks", undefined, root.headers);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { secret: webhookSecret(app.services.secret), pending: 0 });
  assert.equal(
    (await app.json("GET", "/api/server/webhooks", undefined, admin.headers)).status,
    403,
  );
});

apiTest(
  "a test event to one target is queued, listed with its attempts, then delivered and kept " +
    "in the history",
  async (app) => {
    const root = await actor(app, "SUPERADMIN", "root");
    const receiver = startReceiver((n) => (n < 1 ? 503 : 204));
    try {
      const unset = await app.json(
        "POST",
        "/api/server/webhooks/test",
        { kind: "http", event: "upload" },
        root.headers,
      );
      assert.deepEqual(unset.body, {
        error: "No http webhook is set for upload events",
        statusCode: 400,
      });
      await configure(app, { httpWebhookOnUpload: receiver.url });
      const queued = await app.json(
        "POST",
        "/api/server/webhooks/test",
        { kind: "http", event: "upload" },
        root.headers,
      );
      assert.equal(queued.status, 200);
      assert.equal(queued.body.url, receiver.url);
      assert.equal(queued.body.attempts, 0);

      await new WebhookWorker(app.services).runOnce();
      assert.equal(receiver.received.length, 1, "tried once, answered 503");
      const body = JSON.parse(receiver.received[0].body);
      assert.equal(body.type, "upload");
      assert.equal(body.data.user.username, "root");
      const listed = await app.json(
        "GET",
        "/api/server/webhooks/deliveries",
        undefined,
        root.headers,
      );
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.map((d: { id: string; attempts: number; lastError: string }) => [
          d.id,
          d.attempts,
          d.lastError,
        ]),
        [[queued.body.id, 1, "HTTP 503"]],
      );
      assert.ok(Date.parse(listed.body[0].nextAt) > app.clock.now(), "a retry is scheduled");

      app.clock.advance(RETRY_DELAYS_MS[0]);
      await new WebhookWorker(app.services).runOnce();
      assert.equal(receiver.received.length, 2);
      const after = await app.json(
        "GET",
        "/api/server/webhooks/deliveries",
        undefined,
        root.headers,
      );
      assert.deepEqual(after.body, [], "delivered: out of the outbox");
      const history = await app.json(
        "GET",
        "/api/server/webhooks/history",
        undefined,
        root.headers,
      );
      assert.equal(history.status, 200);
      assert.deepEqual(history.body, [{
        id: queued.body.id,
        kind: "http",
        event: "upload",
        url: receiver.url,
        status: "delivered",
        attempts: 2,
        result: "HTTP 204",
        createdAt: queued.body.createdAt,
        finishedAt: new Date(app.clock.now()).toISOString(),
      }], "…and into the history");

      const admin = await actor(app, "ADMIN");
      const refused = await app.json(
        "POST",
        "/api/server/webhooks/test",
        { kind: "http", event: "upload" },
        admin.headers,
      );
      assert.equal(refused.status, 403);
      assert.equal(receiver.received.length, 2);
      for (const path of ["deliveries", "history"]) {
        const hidden = await app.json(
          "GET",
          `/api/server/webhooks/${path}`,
          undefined,
          admin.headers,
        );
        assert.equal(hidden.status, 403, `${path}: target URLs are for SUPERADMINs`);
      }
    } finally {
      await receiver.close();
    }
  },
);

/** `true` when `r` carries the signature `secret` makes of its timestamp and body. */
function signedWith(r: Received, secret: string): boolean {
  const timestamp = r.headers.get("x-service-webhook-timestamp");
  const expected = "sha256=" +
    createHmac("sha256", secret).update(`${timestamp}.${r.body}`).digest("hex");
  return r.headers.get("x-service-signature") === expected;
}

apiTest(
  "POST /api/server/webhooks/secret: a SUPERADMIN rotates the signing secret; deliveries " +
    "are signed with the new one; the audit trail records it masked",
  async (app) => {
    const root = await actor(app, "SUPERADMIN", "root");
    const admin = await actor(app, "ADMIN");
    const derived = webhookSecret(app.services.secret);
    const receiver = startReceiver();
    try {
      await configure(app, { httpWebhookOnUpload: receiver.url });
      const rotated = await app.json(
        "POST",
        "/api/server/webhooks/secret",
        undefined,
        root.headers,
      );
      assert.equal(rotated.status, 200);
      assert.match(rotated.body.secret, /^whsec_[0-9a-f]{64}$/);
      assert.notEqual(rotated.body.secret, derived);
      assert.deepEqual(
        (await app.json("GET", "/api/server/webhooks", undefined, root.headers)).body,
        { secret: rotated.body.secret, pending: 0 },
      );

      await app.json(
        "POST",
        "/api/server/webhooks/test",
        { kind: "http", event: "upload" },
        root.headers,
      );
      await new WebhookWorker(app.services).runOnce();
      assert.equal(receiver.received.length, 1);
      assert.ok(signedWith(receiver.received[0], rotated.body.secret), "the new secret verifies");
      assert.ok(!signedWith(receiver.received[0], derived), "the old one does not");

      const again = await app.json("POST", "/api/server/webhooks/secret", undefined, root.headers);
      assert.notEqual(again.body.secret, rotated.body.secret, "each rotation is fresh");

      const refused = await app.json(
        "POST",
        "/api/server/webhooks/secret",
        undefined,
        admin.headers,
      );
      assert.equal(refused.status, 403);
      const patched = await app.json(
        "PATCH",
        "/api/server/settings",
        { httpWebhookSigningSecret: "whsec_" + "0".repeat(64) },
        admin.headers,
      );
      assert.deepEqual(patched.body, {
        error: "Only a SUPERADMIN may change httpWebhookSigningSecret",
        statusCode: 403,
      });
      const seen = await app.json("GET", "/api/server/settings", undefined, admin.headers);
      assert.equal(seen.body.settings.httpWebhookSigningSecret, "********", "masked for ADMINs");
      assert.equal(
        (await app.json("GET", "/api/server/webhooks", undefined, root.headers)).body.secret,
        again.body.secret,
        "unchanged by the refused requests",
      );

      const audit = await app.json("GET", "/api/server/audit", undefined, root.headers);
      assert.deepEqual(
        audit.body.slice(0, 2).map((r: { user: { username: string }; changes: unknown }) => [
          r.user.username,
          r.changes,
        ]),
        [
          ["root", [{ key: "httpWebhookSigningSecret", old: "********", new: "********" }]],
          ["root", [{ key: "httpWebhookSigningSecret", old: null, new: "********" }]],
        ],
      );
      const stored = JSON.stringify(await app.services.store.settings.listAudit({ limit: 10 }));
      assert.ok(!stored.includes(rotated.body.secret) && !stored.includes(again.body.secret));
    } finally {
      await receiver.close();
    }
  },
);

apiTest(
  "the signing secret pinned by the environment is used, and rotating it is refused (409)",
  async (app) => {
    const root = await actor(app, "SUPERADMIN");
    const pinned = "whsec_pinned_by_the_environment_0123456789";
    const refused = await app.json("POST", "/api/server/webhooks/secret", undefined, root.headers);
    assert.deepEqual(refused.body, {
      error: "The signing secret is set by SERVICE_HTTP_WEBHOOK_SIGNING_SECRET in the " +
        "environment; change it there",
      statusCode: 409,
    });
    assert.deepEqual(
      (await app.json("GET", "/api/server/webhooks", undefined, root.headers)).body,
      { secret: pinned, pending: 0 },
    );
  },
  { env: { SERVICE_HTTP_WEBHOOK_SIGNING_SECRET: "whsec_pinned_by_the_environment_0123456789" } },
);

/** A resolver answering from `table` (and failing for any other name): no DNS is asked. */
function answers(table: Record<string, string[]>): Resolver {
  return (host) =>
    table[host] ? Promise.resolve(table[host]) : Promise.reject(new Error(`no answer: ${host}`));
}

/** The finished deliveries as `[url, status, result]`, the latest first. */
async function finished(app: TestApp) {
  const history = await app.services.store.webhooks.history(10);
  return history.map((f) => [f.url, f.status, f.result]);
}

apiTest(
  "security #30.6: a loopback target without the allow-list is refused, recorded as failed and logged",
  async (app) => {
    const receiver = startReceiver();
    const port = new URL(receiver.url).port;
    try {
      // Stored as an environment variable or an older version would have stored it.
      await configure(app, {
        webhooksAllowedHosts: [],
        httpWebhookOnUpload: receiver.url,
        chatOnUploadWebhookUrl: `http://localhost:${port}/chat`,
        chatOnUploadContent: "{file.name}",
      });
      await queueUpload(app.services, await uploadEvent(app));
      assert.equal(await new WebhookWorker(app.services).runOnce(), 2);
      assert.equal(receiver.received.length, 0, "nothing reached the receiver");
      assert.equal(await app.services.store.webhooks.pending(), 0, "final: not retried");
      const reason = "127.0.0.1 is a loopback address, and webhooksAllowedHosts does not allow it";
      assert.deepEqual(
        (await finished(app)).sort(),
        [
          [
            `http://localhost:${port}/chat`,
            "failed",
            "Refused: localhost is a loopback address, " +
            "and webhooksAllowedHosts does not allow it",
          ],
          [receiver.url, "failed", `Refused: ${reason}`],
        ].sort(),
      );
      const logged = app.logger.lines.filter((l) =>
        l.message === "webhook delivery failed for good"
      );
      assert.deepEqual(
        logged.map((l) => l.fields?.error).sort(),
        (await finished(app)).map((f) => f[2]).sort(),
      );
    } finally {
      await receiver.close();
    }
  },
);

apiTest(
  "security #30.6: a public-looking host name that resolves inside is refused at send time",
  async (app) => {
    app.services.resolver = answers({
      "hooks.example.com": ["93.184.216.34", "127.0.0.1"],
      "chat.example.com": ["fd00:ec2::254"],
    });
    await configure(app, {
      webhooksAllowedHosts: [],
      httpWebhookOnUpload: "http://hooks.example.com/hook",
      chatOnUploadWebhookUrl: "https://chat.example.com/hook",
      chatOnUploadContent: "{file.name}",
    });
    const event = await uploadEvent(app);
    await queueUpload(app.services, event);
    await new WebhookWorker(app.services).runOnce();
    assert.deepEqual((await finished(app)).sort(), [
      [
        "http://hooks.example.com/hook",
        "failed",
        "Refused: hooks.example.com resolves to 127.0.0.1, a loopback address, and " +
        "webhooksAllowedHosts does not allow it",
      ],
      [
        "https://chat.example.com/hook",
        "failed",
        "Refused: chat.example.com resolves to fd00:ec2::254, a cloud metadata address, and " +
        "webhooksAllowedHosts does not allow it",
      ],
    ]);
    // A name that does not resolve is a network error: retried, not refused.
    await configure(app, {
      httpWebhookOnUpload: "http://gone.example.com/hook",
      chatOnUploadWebhookUrl: null,
      chatOnUploadContent: null,
    });
    await queueUpload(app.services, event);
    await new WebhookWorker(app.services).runOnce();
    const [waiting] = await app.services.store.webhooks.list(10);
    assert.equal(waiting.lastError, "no answer: gone.example.com");
  },
);

apiTest(
  "security #30.6: a redirect from an allowed target to an inside one is refused",
  async (app) => {
    app.services.resolver = answers({ "metadata.test": ["169.254.169.254"] });
    const asked: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const path = new URL(req.url).pathname;
      asked.push(path);
      const location = path === "/upload" ? "http://127.0.0.2:1/inside" : "http://metadata.test/";
      return new Response(null, { status: path === "/upload" ? 307 : 302, headers: { location } });
    });
    const base = `http://127.0.0.1:${server.addr.port}`;
    try {
      await configure(app, {
        httpWebhookOnUpload: `${base}/upload`,
        httpWebhookOnShorten: `${base}/shorten`,
      });
      const upload = await uploadEvent(app);
      await queueUpload(app.services, upload);
      await queueShorten(app.services, shortenEvent(upload.user));
      await new WebhookWorker(app.services).runOnce();
      assert.deepEqual(asked.sort(), ["/shorten", "/upload"], "the allowed target was asked");
      assert.deepEqual((await finished(app)).sort(), [
        [
          `${base}/shorten`,
          "failed",
          "Refused: metadata.test resolves to 169.254.169.254, a cloud metadata address, and " +
          "webhooksAllowedHosts does not allow it",
        ],
        [
          `${base}/upload`,
          "failed",
          "Refused: 127.0.0.2 is a loopback address, and webhooksAllowedHosts does not allow it",
        ],
      ]);
    } finally {
      await server.shutdown();
    }
  },
);

apiTest("security #30.6: the allow-list admits the networks it names", async (app) => {
  const receiver = startReceiver(() => 204);
  try {
    await configure(app, {
      webhooksAllowedHosts: ["127.0.0.0/8"],
      httpWebhookOnUpload: receiver.url,
    });
    await queueUpload(app.services, await uploadEvent(app));
    await new WebhookWorker(app.services).runOnce();
    assert.equal(receiver.received.length, 1);
    assert.deepEqual(await finished(app), [[receiver.url, "delivered", "HTTP 204"]]);
  } finally {
    await receiver.close();
  }
});

apiTest(
  "security #30.6: a settings PATCH of a webhook URL pointing inside is refused unless allow-listed",
  async (app) => {
    const root = await actor(app, "SUPERADMIN");
    const admin = await actor(app, "ADMIN");
    const patch = (body: unknown, headers = root.headers) =>
      app.json("PATCH", "/api/server/settings", body, headers);
    const cases: [string, string, string][] = [
      ["httpWebhookOnUpload", "http://127.0.0.1:8080/x", "127.0.0.1 is a loopback address"],
      ["httpWebhookOnShorten", "http://169.254.169.254/latest", "a cloud metadata address"],
      ["chatWebhookUrl", "http://localhost/hook", "localhost is a loopback address"],
      ["chatOnUploadWebhookUrl", "http://10.0.0.5/hook", "10.0.0.5 is a private address"],
      ["chatOnShortenWebhookUrl", "http://[::ffff:192.168.0.1]/", "private (IPv4-mapped)"],
      ["featuresVersionAPI", "http://[fd00::1]/", "fd00::1 is a private (ULA) address"],
    ];
    for (const [key, url, reason] of cases) {
      const refused = await patch({ [key]: url });
      assert.equal(refused.status, 400, key);
      assert.ok(
        refused.body.error.startsWith(`body/${key} must not point inside: `),
        refused.body.error,
      );
      assert.ok(refused.body.error.includes(reason), refused.body.error);
      assert.ok(refused.body.error.endsWith("and webhooksAllowedHosts does not allow it"));
    }
    assert.equal(app.services.settings.get("httpWebhookOnUpload"), null, "nothing was stored");
    // A name is resolved when a delivery is sent, not when it is saved.
    assert.equal((await patch({ httpWebhookOnUpload: "https://hooks.example.com/x" })).status, 200);
    // Allowed in the same change, or before it.
    const allowed = await patch({
      webhooksAllowedHosts: ["127.0.0.1", "localhost"],
      httpWebhookOnUpload: "http://127.0.0.1:8080/x",
    });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.equal((await patch({ chatWebhookUrl: "http://localhost/hook" })).status, 200);
    assert.equal((await patch({ chatOnUploadWebhookUrl: "http://10.0.0.5/hook" })).status, 400);
    // Only a SUPERADMIN widens the allow-list.
    const byAdmin = await patch({ webhooksAllowedHosts: ["10.0.0.0/8"] }, admin.headers);
    assert.deepEqual(byAdmin.body, {
      error: "Only a SUPERADMIN may change webhooksAllowedHosts",
      statusCode: 403,
    });
    const bad = await patch({ webhooksAllowedHosts: ["10.0.0.0/33"] });
    assert.equal(bad.status, 400);
  },
);
