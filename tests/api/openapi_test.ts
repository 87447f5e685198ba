/**
 * The OpenAPI document: it lists every route the app serves and nothing else,
 * each operation documents its error responses in the spec's format, it is a
 * valid OpenAPI 3.1 document, the examples it shows work, and the reference
 * page at `/api/docs` is served whole by Ferry.
 */
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { writeOpenApi } from "../../cli/openapi.ts";
import { createApp } from "../../routes/mod.ts";
import { sessionCookie, startTestApp, type TestApp } from "../helpers/app.ts";

/** Routes the app serves that are deliberately not in the document. */
const UNDOCUMENTED = new Set([
  "GET /api/openapi.json", // the document itself
  "GET /api/docs", // the reference page, for people
  "GET /api/docs/assets/{file}", // its stylesheet and scripts
  "GET /", // the pages for people (routes/web/), and their script and stylesheet
  "GET /auth/login",
  "GET /auth/register",
  "GET /auth/setup",
  "GET /auth/tos",
  "GET /dashboard",
  "GET /dashboard/help/{doc}",
  "GET /dashboard/avatar",
  "GET /dashboard/upload",
  "GET /dashboard/upload/file",
  "GET /dashboard/upload/text",
  "GET /dashboard/files",
  "GET /dashboard/urls",
  "GET /dashboard/folders",
  "GET /dashboard/tags",
  "GET /dashboard/settings",
  "GET /dashboard/security",
  "GET /dashboard/requests",
  "GET /dashboard/stats",
  "GET /dashboard/admin/users",
  "GET /dashboard/admin/invites",
  "GET /dashboard/admin/settings",
  "GET /dashboard/admin/audit",
  "GET /dashboard/admin/webhooks",
  "GET /dashboard/admin/transfer",
  "GET /dashboard/admin/maintenance",
  "GET /folder/{id}",
  "GET /view/{name}",
  "GET /view/url/{id}",
  "GET /request/{code}", // an upload request's public page (routes/web/request_page.tsx)
  "GET /s/{code}", // share links: the page and the bytes (routes/shared_links.ts)
  "GET /s/{code}/raw",
  "HEAD /s/{code}/raw",
  "GET /s/{code}/files/{fileId}",
  "HEAD /s/{code}/files/{fileId}",
  "GET /s/{code}/zip",
  "GET /assets/{file}",
  "GET /robots.txt", // the site's root files (routes/web/site_files.ts)
  "GET /manifest.json",
  "GET /favicon.svg",
  "GET /favicon.ico",
]);

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const ERROR_REF = "#/components/schemas/Error";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One operation of the document. */
interface Operation {
  method: string;
  path: string;
  op: Json;
}

/** Runs `fn` on a fresh test app (Deno KV in memory); the document does not depend on the store. */
function docTest(name: string, fn: (app: TestApp, t: Deno.TestContext) => Promise<void>) {
  Deno.test({
    name,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async (t) => {
      const app = await startTestApp("kv");
      try {
        await fn(app, t);
      } finally {
        await app.close();
      }
    },
  });
}

async function fetchDocument(app: TestApp): Promise<Json> {
  const res = await app.json("GET", "/api/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return res.body;
}

function operations(doc: Json): Operation[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] }))
  );
}

/** `/users/:id` and `/users/:id{[0-9]+}` as the document writes them: `/users/{id}`. */
function documentPath(honoPath: string): string {
  return honoPath.replace(/:(\w+)(\{[^}]*\})?\??/g, "{$1}");
}

/** Follows a local `$ref` (`#/components/...`) to what it names. */
function deref(doc: Json, node: Json): Json {
  while (node && typeof node.$ref === "string") {
    node = node.$ref.slice(2).split("/").reduce((at: Json, key: string) => at?.[key], doc);
  }
  return node;
}

function refersToError(response: Json): boolean {
  return response?.content?.["application/json"]?.schema?.$ref === ERROR_REF;
}

docTest("every route the app serves is documented, and only those", async (app) => {
  const doc = await fetchDocument(app);
  const served = new Set(
    createApp(app.services).routes
      .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => `${r.method} ${documentPath(r.path)}`),
  );
  const documented = new Set(
    operations(doc).map(({ method, path }) => `${method.toUpperCase()} ${path}`),
  );
  const missing = [...served].filter((r) => !documented.has(r) && !UNDOCUMENTED.has(r));
  assert.deepEqual(missing, [], "routes the app serves but the document lacks");
  const phantom = [...documented].filter((r) => !served.has(r));
  assert.deepEqual(phantom, [], "operations in the document the app does not serve");
  const staleAllowList = [...UNDOCUMENTED].filter((r) => !served.has(r) || documented.has(r));
  assert.deepEqual(staleAllowList, [], "UNDOCUMENTED entries that are not served undocumented");
});

docTest("every operation documents its errors in the spec's format", async (app) => {
  const doc = await fetchDocument(app);
  assert.deepEqual(deref(doc, { $ref: ERROR_REF }).required, ["error", "statusCode"]);
  assert.deepEqual(doc.components.securitySchemes, {
    token: {
      type: "apiKey",
      in: "header",
      name: "Authorization",
      description: doc.components.securitySchemes.token.description,
    },
    session: {
      type: "apiKey",
      in: "cookie",
      name: "service_session",
      description: doc.components.securitySchemes.session.description,
    },
    apiKey: {
      type: "apiKey",
      in: "header",
      name: "Authorization",
      description: doc.components.securitySchemes.apiKey.description,
      "x-scopes": doc.components.securitySchemes.apiKey["x-scopes"],
    },
  });
  const problems: string[] = [];
  for (const { method, path, op } of operations(doc)) {
    const where = `${method.toUpperCase()} ${path}`;
    const responses = op.responses ?? {};
    const needs = ["500"];
    if (!Array.isArray(op.security)) problems.push(`${where}: no explicit security`);
    else if (op.security.length > 0) needs.push("401");
    for (const requirement of op.security ?? []) {
      for (const scheme of Object.keys(requirement)) {
        if (!doc.components.securitySchemes[scheme]) {
          problems.push(`${where}: unknown security scheme ${scheme}`);
        }
      }
    }
    if ((op.parameters ?? []).length > 0 || op.requestBody) needs.push("400");
    for (const status of needs) {
      if (!refersToError(responses[status])) problems.push(`${where}: no ${status} Error response`);
    }
    for (const [status, response] of Object.entries<Json>(responses)) {
      const isJson = deref(doc, response)?.content?.["application/json"];
      if (Number(status) >= 400 && isJson && !refersToError(deref(doc, response))) {
        problems.push(`${where}: ${status} is JSON but not the Error schema`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

docTest("the document is valid OpenAPI 3.1, and `deno task openapi` writes it", async (app) => {
  const doc = await fetchDocument(app);
  assert.equal(doc.openapi, "3.1.0");
  const result = await new Validator().validate(doc);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2));

  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await writeOpenApi(file);
    const written = JSON.parse(await Deno.readTextFile(file));
    assert.deepEqual({ ...written, info: doc.info }, doc);
  } finally {
    await Deno.remove(file);
  }
});

/**
 * The JSON request body the document shows for `op`: the media type's own
 * example, else the schema's, else an object of its properties' examples.
 * `undefined` when there is none, or when a required part has no example.
 */
function bodyExample(doc: Json, op: Json): unknown {
  const mediaType = op.requestBody?.content?.["application/json"];
  if (!mediaType) return undefined;
  if (mediaType.example !== undefined) return mediaType.example;
  const named = Object.values<Json>(mediaType.examples ?? {})[0];
  if (named) return deref(doc, named).value;
  return schemaExample(doc, mediaType.schema);
}

function schemaExample(doc: Json, schema: Json): unknown {
  schema = deref(doc, schema);
  if (!schema) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.properties) {
    const object: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(schema.properties)) {
      const value = schemaExample(doc, property);
      if (value !== undefined) object[key] = value;
      else if (schema.required?.includes(key)) return undefined;
    }
    return Object.keys(object).length > 0 ? object : undefined;
  }
  if (schema.type === "array" && schema.items) {
    const item = schemaExample(doc, schema.items);
    return item === undefined ? undefined : [item];
  }
  return undefined;
}

/** The URL and headers for `op` from its parameters' examples; `null` if a required one has none. */
function requestFromParameters(
  doc: Json,
  { path, op }: Operation,
): { url: string; headers: Headers } | null {
  let url = path;
  const query = new URLSearchParams();
  const headers = new Headers();
  for (const parameter of (op.parameters ?? []).map((p: Json) => deref(doc, p))) {
    const value = parameter.example ?? schemaExample(doc, parameter.schema);
    if (value === undefined) {
      if (parameter.required) return null;
      continue;
    }
    if (parameter.in === "path") url = url.replace(`{${parameter.name}}`, String(value));
    else if (parameter.in === "query") query.set(parameter.name, String(value));
    else if (parameter.in === "header") headers.set(parameter.name, String(value));
    else if (parameter.required) return null;
  }
  return { url: query.size > 0 ? `${url}?${query}` : url, headers };
}

/**
 * Each example runs on a fresh instance set up with the document's own setup
 * example (except the setup example itself), so that example credentials
 * log in; operations with security send that first user's session cookie.
 * The answer must be a documented success. A record named in the path cannot
 * exist on a fresh instance, so there a documented 404 passes too: the example
 * was well-formed and reached the lookup.
 */
Deno.test({
  name: "each documented JSON request example gets a documented success status",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const first = await startTestApp("kv");
    let doc: Json;
    try {
      doc = await fetchDocument(first);
    } finally {
      await first.close();
    }
    const setupExample = bodyExample(doc, doc.paths["/api/setup"].post);
    assert.ok(setupExample, "POST /api/setup has no example");

    for (const operation of operations(doc)) {
      const { method, path, op } = operation;
      const body = bodyExample(doc, op);
      const request = requestFromParameters(doc, operation);
      if (body === undefined || !request) continue;
      await t.step(`${method.toUpperCase()} ${path}`, async () => {
        const app = await startTestApp("kv");
        try {
          const { url, headers } = request;
          if (!(method === "post" && path === "/api/setup")) {
            const setup = await app.json("POST", "/api/setup", setupExample);
            assert.equal(setup.status, 200);
            if (op.security.length > 0) headers.set("cookie", sessionCookie(setup.headers));
          }
          headers.set("content-type", "application/json");
          const res = await app.request(url, {
            method: method.toUpperCase(),
            headers,
            body: JSON.stringify(body),
          });
          const passing = Object.keys(op.responses).filter((status) =>
            /^2\d\d$/.test(status) || (status === "404" && path.includes("{"))
          );
          const errors = app.logger.lines.filter((l) => l.level === "error");
          assert.ok(
            passing.includes(String(res.status)),
            `${JSON.stringify(body)} got ${res.status}, not one of ${passing}: ` +
              `${await res.text()} ${JSON.stringify(errors)}`,
          );
        } finally {
          await app.close();
        }
      });
    }
  },
});

docTest("/api/docs is an HTML page whose every asset Ferry serves", async (app) => {
  const page = await app.request("/api/docs");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'self'/);
  const html = await page.text();
  const refs = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g)]
    .map((m) => m[1]);
  assert.ok(refs.length >= 2, html);
  for (const ref of refs) {
    assert.ok(ref.startsWith("/") && !ref.startsWith("//"), `${ref} is not served by Ferry`);
    const res = await app.request(ref);
    assert.equal(res.status, 200, ref);
    assert.match(res.headers.get("content-type") ?? "", /^text\/(css|javascript)/);
    assert.ok((await res.arrayBuffer()).byteLength > 0, ref);
  }
  const unknown = await app.json("GET", "/api/docs/assets/package.json");
  assert.equal(unknown.status, 404);
});
