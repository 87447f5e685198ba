/**
 * A malformed-request fuzz of every route the app answers (its route table;
 * a JSON body's fields and the declared headers and queries come from the
 * OpenAPI document, so new routes are fuzzed without listing them here):
 * garbage path parameters and queries, malformed and wrongly typed bodies,
 * huge numbers, unicode and NUL strings, 8 KB header values and bodies cut
 * short, each as anonymous, a signed-in user and an admin. No answer may be
 * a 5xx; every failure is reported at once.
 */
import assert from "node:assert/strict";
import { apiTest, sessionCookie, type TestApp } from "../helpers/app.ts";
import { truncatedRequest, withServer } from "../helpers/raw_http.ts";
import { actor } from "../helpers/users.ts";

/** One request to send. */
interface Probe {
  what: string;
  path: string;
  init: RequestInit;
}

/** A route to fuzz, from the route table and the OpenAPI document. */
interface Target {
  method: string;
  /** Hono's pattern: `/api/users/:id`, `/*`. */
  pattern: string;
  /** Top-level fields of its JSON body, when it declares one. */
  fields: string[] | null;
  query: string[];
}

const PARAMS = [
  "%00",
  "%E0%A4%A",
  "..%2F..%2Fetc%2Fpasswd",
  encodeURIComponent("ユーザー👩‍💻\u202e"),
  "-1",
  "1e308",
  "null",
  "x".repeat(2000),
];

/** Valid where an image goes, and larger than one Deno KV value. */
const LARGE = "data:image/png;base64," + "A".repeat(200 * 1024);

const VALUES: unknown[] = [
  null,
  true,
  -1,
  1e308,
  2 ** 64,
  "",
  "ユーザー👩‍💻\u0000\u202e",
  "x".repeat(10_000),
  LARGE,
  [],
  [{}],
  {},
  { nested: { deep: [1, "2", null] } },
];

const RAW_BODIES = ["", "[1,2", '{"a":', "1e400", "null", '"\\u0000"', '{"__proto__":{"x":1}}'];

const BIG = "x".repeat(8 * 1024);

// deno-lint-ignore no-explicit-any
type Doc = any;

/** Resolves `{$ref: "#/components/…"}` in the document. */
function resolve(doc: Doc, schema: Doc): Doc {
  if (!schema?.$ref) return schema;
  return (schema.$ref as string).slice(2).split("/").reduce((at: Doc, key) => at?.[key], doc);
}

/** Every route of `app`, with what the document declares of it. */
function targets(app: TestApp, doc: Doc): Target[] {
  const seen = new Set<string>();
  const out: Target[] = [];
  for (const { method, path } of app.routes) {
    if (method === "ALL" || seen.has(`${method} ${path}`)) continue;
    seen.add(`${method} ${path}`);
    const op = doc.paths[path.replace(/:(\w+)/g, "{$1}")]?.[method.toLowerCase()];
    const body = resolve(doc, op?.requestBody?.content?.["application/json"]?.schema);
    const params: { in: string; name: string }[] = op?.parameters ?? [];
    out.push({
      method,
      pattern: path,
      fields: body ? Object.keys(body.properties ?? {}) : null,
      query: params.filter((p) => p.in === "query").map((p) => p.name),
    });
  }
  // `GET /*` serves files and short URLs under the routes the settings name.
  const settings = app.services.settings;
  for (const prefix of [settings.get("filesRoute"), settings.get("urlsRoute"), "/raw", "/r"]) {
    out.push({
      method: "GET",
      pattern: `${prefix}/:name`,
      fields: null,
      query: ["pw", "download"],
    });
  }
  return out;
}

/** Every header the document declares (option headers and the like). */
function declaredHeaders(doc: Doc): string[] {
  const names = new Set<string>();
  for (const ops of Object.values<Doc>(doc.paths)) {
    for (const op of Object.values<Doc>(ops)) {
      for (const p of op.parameters ?? []) if (p.in === "header") names.add(p.name);
    }
  }
  return [...names];
}

/** `pattern` with every parameter (and wildcard) set to `value`. */
function fill(pattern: string, value: string): string {
  return pattern.replace(/:\w+(\{[^}]*\})?\??/g, value).replace(/\*/g, value);
}

/** JSON bodies for `fields`: malformed ones, each value whole, and each field given a wrong one. */
function bodies(fields: string[]): [string, string][] {
  const out: [string, string][] = RAW_BODIES.map((raw) => [`raw ${raw.slice(0, 20)}`, raw]);
  for (const value of VALUES) {
    out.push([`value ${JSON.stringify(value).slice(0, 20)}`, JSON.stringify(value)]);
    if (fields.length > 0) {
      const all = Object.fromEntries(fields.map((f) => [f, value]));
      out.push([`every field ${JSON.stringify(value).slice(0, 20)}`, JSON.stringify(all)]);
    }
  }
  fields.forEach((field, i) => {
    for (const value of [VALUES[i % VALUES.length], VALUES[(i + 5) % VALUES.length], LARGE]) {
      const body = JSON.stringify({ [field]: value });
      out.push([`${field}=${JSON.stringify(value).slice(0, 20)}`, body]);
    }
  });
  return out;
}

/** The requests for `t` as the holder of `auth` headers. */
function probes(t: Target, auth: Record<string, string>, headers: string[]): Probe[] {
  const out: Probe[] = [];
  const method = t.method;
  const takesBody = method !== "GET" && method !== "HEAD";
  const json = { ...auth, "content-type": "application/json" };
  for (const param of PARAMS) {
    const query = t.query.map((q) => `${q}=${param}`).join("&");
    out.push({
      what: `param ${param.slice(0, 20)}`,
      path: fill(t.pattern, param) + (query ? `?${query}` : ""),
      init: { method, headers: takesBody ? json : auth, body: takesBody ? "{}" : undefined },
    });
  }
  const path = fill(t.pattern, "x");
  const long = Object.fromEntries(
    [...headers, "x-forwarded-for", "user-agent", "range", "if-none-match", "origin"]
      .map((h) => [h, BIG]),
  );
  out.push({
    what: "8 KB headers",
    path,
    init: { method, headers: { ...long, cookie: `service_session=${BIG}; x=${BIG}`, ...auth } },
  });
  if (!takesBody) return out;
  for (const [what, body] of bodies(t.fields ?? [])) {
    out.push({ what, path, init: { method, headers: json, body } });
  }
  for (const type of ["multipart/form-data; boundary=b", "multipart/form-data", "text/plain"]) {
    out.push({
      what: type,
      path,
      init: { method, headers: { ...auth, "content-type": type }, body: "--b\r\ngarbage" },
    });
  }
  out.push({ what: "no body", path, init: { method, headers: auth } });
  return out;
}

/** Sends `probe`; a description of the failure when the answer is a 5xx. */
async function send(app: TestApp, who: string, probe: Probe): Promise<string | null> {
  const logged = app.logger.lines.length;
  const res = await app.request(probe.path, probe.init);
  const text = await res.text();
  if (res.status < 500) return null;
  return `${who} ${probe.init.method} ${probe.path.slice(0, 60)} [${probe.what}] → ${res.status} ` +
    `${text.slice(0, 80)} ${causeOf(app, logged)}`;
}

/** The first error logged after the first `logged` lines: a 500's cause. */
function causeOf(app: TestApp, logged: number): string {
  const cause = app.logger.lines.slice(logged).find((l) => l.level === "error");
  const error = cause?.fields?.error;
  return error instanceof Error ? error.message : cause?.message ?? "";
}

/** Sends `t` a body that declares 10 000 bytes and ends after 114, over a socket. */
async function cutShort(
  app: TestApp,
  port: number,
  who: string,
  t: Target,
  auth: Record<string, string>,
): Promise<string | null> {
  const path = fill(t.pattern, "x");
  const headers = { ...auth, "content-type": "application/json" };
  const body = new TextEncoder().encode('{"username":"' + "x".repeat(100));
  const logged = app.logger.lines.length;
  const res = await truncatedRequest(port, t.method, path, headers, body, 10_000);
  // A streamed answer (an export) may never start: the connection is dropped, no 5xx.
  if (res.status < 500) return null;
  return `${who} ${t.method} ${path} [cut short] → ${res.status} ${JSON.stringify(res.body)} ` +
    causeOf(app, logged);
}

/** Who sends the requests: headers that authenticate them, made anew if a request undid them. */
interface Sender {
  name: string;
  headers(): Promise<Record<string, string>>;
}

function senders(app: TestApp): Sender[] {
  let admin: Record<string, string> | null = null;
  let user: Record<string, string> | null = null;
  const valid = async (h: Record<string, string> | null) =>
    h !== null && (await app.json("GET", "/api/user", undefined, h)).status === 200;
  return [
    { name: "anonymous", headers: () => Promise.resolve({}) },
    {
      name: "user (session)",
      async headers() {
        if (await valid(user)) return user!;
        const { user: u } = await actor(app, "USER");
        app.clock.advance(3000);
        const login = await app.request("/api/auth/login", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username: u.username, password: "password" }),
        });
        user = { cookie: sessionCookie(login.headers) };
        return user;
      },
    },
    {
      name: "admin (token)",
      async headers() {
        if (!(await valid(admin))) admin = (await actor(app, "SUPERADMIN")).headers;
        return admin!;
      },
    },
  ];
}

apiTest("conformance: a malformed-request fuzz of every route finds no 5xx", async (app) => {
  const doc = (await app.json("GET", "/api/openapi.json")).body;
  const routes = targets(app, doc);
  const headers = declaredHeaders(doc);
  const failures: string[] = [];
  let sent = 0;
  const check = (failure: string | null) => {
    sent++;
    if (failure) failures.push(failure);
  };
  const who = senders(app);
  await withServer(app, async (port) => {
    for (const t of routes) {
      for (const sender of who) {
        const auth = await sender.headers();
        for (const probe of probes(t, auth, headers)) check(await send(app, sender.name, probe));
        check(await cutShort(app, port, sender.name, t, auth));
      }
      check(
        await send(app, "bad token", {
          what: "8 KB authorization",
          path: fill(t.pattern, "x"),
          init: { method: t.method, headers: { authorization: BIG } },
        }),
      );
    }
  });
  assert.ok(routes.length > 100, `only ${routes.length} routes`);
  assert.deepEqual(
    failures,
    [],
    `${failures.length} of ${sent} requests failed:\n${failures.join("\n")}`,
  );
});
