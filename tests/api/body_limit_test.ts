/** JSON request bodies are bounded by their route's declared limit (security #5). */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { chunkedRequest, withServer } from "../helpers/raw_http.ts";
import { actor } from "../helpers/users.ts";

const MiB = 1024 * 1024;

/** A body stream of `chunk`-sized pieces, without end; counts what was pulled. */
function endless(chunk = 64 * 1024) {
  const pulled = { bytes: 0 };
  const piece = new TextEncoder().encode(" ".repeat(chunk));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled.bytes += piece.byteLength;
      controller.enqueue(piece);
    },
  });
  return { stream, pulled };
}

async function login(app: TestApp, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await app.request("/api/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: res.status, body: await res.json() };
}

apiTest(
  "security #5: a login body over 1 MiB is refused with 413 before it is read",
  async (app) => {
    const big = JSON.stringify({ username: "a", password: "x".repeat(2 * MiB) });
    const declared = await login(app, big, { "content-length": String(big.length) });
    assert.equal(declared.status, 413);
    assert.deepEqual(declared.body, {
      error: `Request body is too large: at most ${MiB} bytes`,
      statusCode: 413,
    });
    // Without a Content-Length (as app.request sends a string), read up to the limit only.
    const undeclared = await login(app, big);
    assert.equal(undeclared.status, 413);
    assert.equal(undeclared.body.statusCode, 413);
  },
);

apiTest(
  "security #5: a chunked body without Content-Length is cut off once past 1 MiB",
  async (app) => {
    const { stream, pulled } = endless();
    const res = await login(app, stream);
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, {
      error: `Request body is too large: at most ${MiB} bytes`,
      statusCode: 413,
    });
    assert.ok(pulled.bytes <= MiB + 2 * 64 * 1024, `read ${pulled.bytes} bytes`);
  },
);

apiTest("security #5: a normal login, streamed or not, still works", async (app) => {
  const user = await actor(app, "USER");
  const credentials = JSON.stringify({ username: user.user.username, password: "password" });
  assert.equal((await login(app, credentials)).status, 200);
  const bytes = new TextEncoder().encode(credentials);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, 10));
      controller.enqueue(bytes.subarray(10));
      controller.close();
    },
  });
  assert.equal((await login(app, stream)).status, 200);
  const wrong = await login(
    app,
    JSON.stringify({ username: user.user.username, password: "wrong-password" }),
  );
  assert.deepEqual(wrong.body, { error: "Invalid username or password", statusCode: 400 });
});

apiTest("security #5: a settings PATCH over 1 MiB but within its own limit works", async (app) => {
  const admin = await actor(app, "SUPERADMIN");
  const embed = { title: "t".repeat(256), description: "d".repeat(4096), footer: "f".repeat(2048) };
  const change = { chatOnUploadEmbed: embed, websiteTitle: "Big" };
  // Pretty-printed with a wide indent: valid JSON of about 2 MiB.
  const body = " ".repeat(2 * MiB) + JSON.stringify(change);
  const res = await app.json("PATCH", "/api/server/settings", body, admin.headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const after = await app.json("GET", "/api/server/settings", undefined, admin.headers);
  assert.equal(after.body.settings.websiteTitle, "Big");
  assert.equal(after.body.settings.chatOnUploadEmbed.description, embed.description);
  // Past its own limit, the same route refuses.
  const tooBig = " ".repeat(5 * MiB) + JSON.stringify(change);
  const refused = await app.json("PATCH", "/api/server/settings", tooBig, admin.headers);
  assert.equal(refused.status, 413);
  assert.equal(refused.body.statusCode, 413);
});

apiTest("security #5: the OpenAPI document states each JSON body's limit", async (app) => {
  const doc = (await app.json("GET", "/api/openapi.json")).body;
  assert.equal(doc.paths["/api/auth/login"].post["x-body-limit"], MiB);
  assert.equal(doc.paths["/api/server/settings"].patch["x-body-limit"], 4 * MiB);
  assert.ok(doc.paths["/api/auth/login"].post.responses["413"]);
  assert.equal(doc.paths["/api/upload"].post["x-body-limit"], undefined);
});

apiTest(
  "security #5: a chunked login over a socket is answered 413 once past 1 MiB",
  async (app) => {
    const reply = await withServer(app, (port) =>
      chunkedRequest(
        port,
        "POST",
        "/api/auth/login",
        { "content-type": "application/json" },
        8 * MiB,
      ));
    assert.equal(reply.status, 413);
    assert.deepEqual(reply.body, {
      error: `Request body is too large: at most ${MiB} bytes`,
      statusCode: 413,
    });
  },
);
