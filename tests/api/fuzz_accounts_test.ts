/**
 * Fuzzes the JSON bodies of the account routes: wrong types, huge strings,
 * unicode, nulls, arrays where objects belong. Every answer must be a 4xx in
 * the spec's error format (or a success), never a 500.
 */
import assert from "node:assert/strict";
import { apiTest } from "../helpers/app.ts";
import { actor } from "../helpers/users.ts";

const VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  "",
  " ",
  "x".repeat(100_000),
  "ユーザー👩‍💻\u0000\u202e",
  [],
  ["a"],
  {},
  { nested: { deep: [1, 2, 3] } },
];

/** Bodies: each value alone, and as the value of every field the route knows. */
function bodies(fields: string[]): unknown[] {
  const out: unknown[] = [...VALUES, "[1,2", '{"a":'];
  for (const field of fields) {
    for (const value of VALUES) out.push({ [field]: value });
  }
  out.push(Object.fromEntries(fields.map((f, i) => [f, VALUES[i % VALUES.length]])));
  return out;
}

apiTest("account routes answer every malformed body with a 4xx", async (app) => {
  const root = await actor(app, "SUPERADMIN");
  const target = await actor(app, "USER");
  const routes: [string, string, string[]][] = [
    ["POST", "/api/auth/login", ["username", "password", "code"]],
    ["POST", "/api/setup", ["username", "password"]],
    ["PATCH", "/api/user", ["username", "password", "avatar", "view"]],
    ["DELETE", "/api/user/sessions", ["sessionId", "all"]],
    ["POST", "/api/users", ["username", "password", "avatar", "role", "noincl"]],
    ["PATCH", `/api/users/${target.user.id}`, ["username", "password", "avatar", "role", "quota"]],
    ["DELETE", `/api/users/${crypto.randomUUID()}`, ["delete"]],
  ];
  let sent = 0;
  for (const [method, path, fields] of routes) {
    for (const body of bodies(fields)) {
      const res = await app.json(
        method,
        path,
        typeof body === "string" ? body : JSON.stringify(body),
        root.headers,
      );
      sent++;
      const where = `${method} ${path} ${JSON.stringify(body).slice(0, 80)}`;
      assert.ok(res.status < 500, `${where} → ${res.status} ${JSON.stringify(res.body)}`);
      if (res.status >= 400) {
        assert.equal(typeof res.body.error, "string", where);
        assert.equal(res.body.statusCode, res.status, where);
      }
    }
  }
  assert.ok(sent > 300);
  assert.equal(app.logger.lines.filter((l) => l.level === "error").length, 0);
});
