/** The error model: unknown routes, malformed JSON, validation failures, CORS. */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";

apiTest("unknown routes answer the framework's 404 body", async (app) => {
  for (const method of ["GET", "POST", "PATCH", "DELETE"]) {
    const res = await app.json(method, "/api/nope");
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, {
      message: `Route ${method}:/api/nope not found`,
      error: "Not Found",
      statusCode: 404,
    });
  }
});

apiTest("malformed JSON is a 400, not a 500", async (app) => {
  const res = await app.json("POST", "/api/setup", "{not json");
  assert.equal(res.status, 400);
  assert.equal(res.body.statusCode, 400);
  assert.equal(typeof res.body.error, "string");
  assert.equal(app.logger.lines.filter((l) => l.level === "error").length, 0);
});

apiTest("a zod failure is a 400 with issues", async (app) => {
  const res = await app.json("POST", "/api/setup", { username: 42 });
  assert.equal(res.status, 400);
  assert.equal(res.body.statusCode, 400);
  assert.match(res.body.error, /^body\/username /);
  assert.ok(Array.isArray(res.body.issues) && res.body.issues.length === 2);
  for (const issue of res.body.issues) {
    assert.deepEqual(Object.keys(issue).sort(), ["code", "message", "path"]);
    assert.ok(issue.path.every((p: unknown) => typeof p === "string"));
  }
  assert.deepEqual(res.body.issues.map((i: { path: string[] }) => i.path), [
    ["username"],
    ["password"],
  ]);
  assert.equal(res.body.issues[0].code, "invalid_type");
});

apiTest("a body that is not JSON at all is refused with a 4xx", async (app) => {
  const res = await app.request("/api/setup", {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: "username=a",
  });
  assert.equal(res.status, 415);
  assert.deepEqual(await res.json(), { error: "Unsupported Media Type", statusCode: 415 });
});

apiTest("CORS is open, as Zipline's is", async (app) => {
  const res = await app.request("/api/setup", {
    method: "OPTIONS",
    headers: { origin: "https://example.org", "access-control-request-method": "POST" },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const get = await app.request("/api/setup", { headers: { origin: "https://example.org" } });
  assert.equal(get.headers.get("access-control-allow-origin"), "*");
});
