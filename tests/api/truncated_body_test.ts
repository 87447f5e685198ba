/**
 * Streamed bodies that end before their `Content-Length` (the client
 * half-closed or went away): a 400 in the spec's error body, and nothing left
 * behind; the same request sent whole then succeeds.
 */
import assert from "node:assert/strict";
import type { TestApp } from "../helpers/app.ts";
import { apiTest } from "../helpers/app.ts";
import { truncatedRequest, withServer } from "../helpers/raw_http.ts";
import { fixture } from "../helpers/transfer.ts";
import { type Actor, actor } from "../helpers/users.ts";

const TRUNCATED = { error: "The request body ended before it was complete", statusCode: 400 };
const BOUNDARY = "ferry-truncated";
const encoder = new TextEncoder();

/** A multipart body of one file part holding `size` bytes. */
function multipart(size: number): Uint8Array {
  return encoder.encode(
    `--${BOUNDARY}\r\n` +
      `content-disposition: form-data; name="file"; filename="cut.txt"\r\n` +
      `content-type: text/plain\r\n\r\n` +
      "x".repeat(size) + `\r\n--${BOUNDARY}--\r\n`,
  );
}

/**
 * Sends the first half of `body` declaring all of it, asserts the 400, checks
 * with `nothingLeft`, then sends all of it and returns that reply.
 */
async function halfThenWhole(
  app: TestApp,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
  nothingLeft: () => Promise<void>,
) {
  const cut = await withServer(
    app,
    (port) =>
      truncatedRequest(
        port,
        "POST",
        path,
        headers,
        body.subarray(0, body.length >> 1),
        body.length,
      ),
  );
  assert.equal(cut.status, 400, JSON.stringify(cut.body));
  assert.deepEqual(cut.body, TRUNCATED);
  await nothingLeft();
  const whole = await app.request(path, { method: "POST", headers, body: body.slice() });
  return { status: whole.status, body: await whole.json() };
}

/** No file row, no stored object, no usage, no spool or temp file. */
async function nothingLeft(app: TestApp, user: Actor, tempDir: string) {
  for await (const _ of app.services.store.files.iterate()) assert.fail("a file row was left");
  assert.deepEqual(await app.storedObjects(), []);
  assert.deepEqual(await app.services.store.files.usage(user.user.id), { files: 0, bytes: 0 });
  assert.deepEqual(await Array.fromAsync(Deno.readDir(tempDir)), [], "a temp file was left");
}

/** A temp directory of the test's own, as the instance's `coreTempDirectory`. */
async function ownTempDir(app: TestApp): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "ferry-truncated-test-" });
  await app.services.store.settings.update({ coreTempDirectory: dir });
  await app.services.settings.reload();
  return dir;
}

const uploadHeaders = (user: Actor) => ({
  ...user.headers,
  "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
});

apiTest("conformance: an upload cut short is a 400 and leaves nothing behind", async (app) => {
  const user = await actor(app, "USER");
  const tmp = await ownTempDir(app);
  const whole = await halfThenWhole(
    app,
    "/api/upload",
    uploadHeaders(user),
    multipart(256 * 1024),
    () => nothingLeft(app, user, tmp),
  );
  assert.equal(whole.status, 200, JSON.stringify(whole.body));
  assert.equal(whole.body.files.length, 1);
  await Deno.remove(tmp, { recursive: true });
});

apiTest(
  "conformance: a partial-upload chunk cut short is a 400 and leaves nothing behind",
  async (app) => {
    const user = await actor(app, "USER");
    const tmp = await ownTempDir(app);
    const size = 256 * 1024;
    const headers = {
      ...uploadHeaders(user),
      "content-range": `bytes 0-${size - 1}/${size}`,
      "x-zipline-p-filename": "cut.txt",
      "x-zipline-p-content-type": "text/plain",
      "x-zipline-p-content-length": String(size),
    };
    const whole = await halfThenWhole(
      app,
      "/api/upload/partial",
      headers,
      multipart(size),
      async () => {
        assert.deepEqual(await app.services.store.chunks.listByUser(user.user.id), []);
        await nothingLeft(app, user, tmp);
      },
    );
    assert.equal(whole.status, 200, JSON.stringify(whole.body));
    await Deno.remove(tmp, { recursive: true });
  },
);

for (const version of ["v3", "v4"] as const) {
  apiTest(
    `conformance: a ${version} import cut short is a 400 and leaves nothing behind`,
    async (app) => {
      const admin = await actor(app, "SUPERADMIN", "admin");
      const tmp = await ownTempDir(app);
      const headers = { ...admin.headers, "content-type": "application/json" };
      const doc = encoder.encode(await fixture(version));
      const path = `/api/server/import/${version}`;
      const whole = await halfThenWhole(app, path, headers, doc, async () => {
        assert.deepEqual((await app.services.store.users.list()).map((u) => u.id), [admin.user.id]);
        await nothingLeft(app, admin, tmp);
      });
      assert.equal(whole.status, 200, JSON.stringify(whole.body));
      await Deno.remove(tmp, { recursive: true });
    },
  );
}
