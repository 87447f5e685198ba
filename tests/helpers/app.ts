/**
 * A complete service for API tests: a fresh store of the given kind (behind
 * the serving store, its caches on the manual clock), a local datasource in a
 * temp dir, a manual clock, and the app with response checks on. Requests go through `app.request()`; no port is opened.
 */
import { ManualClock, systemRandom } from "../../core/clock.ts";
import { MemoryLogger } from "../../core/log.ts";
import type { Services } from "../../core/services.ts";
import type { Theme } from "../../core/themes.ts";
import { parseSettingsEnv } from "../../core/settings/env.ts";
import { SettingsService } from "../../core/settings/service.ts";
import { fileSystemContext, findFfmpeg } from "../../cli/services.ts";
import { closeVisits } from "../../core/visits/record.ts";
import { servingStore } from "../../db/serving.ts";
import type { Backend } from "../../db/store.ts";
import { createHandler } from "../../routes/mod.ts";
import { type DatasourceKind, ignoreDatasource, openTestDatasource } from "./datasources.ts";
import { ignoreKind, openTestStore, STORE_KINDS, type StoreKind } from "./stores.ts";

/** The secret test services use. */
export const TEST_SECRET = "test-secret-test-secret-test-secret-0123";

/** A running test instance. */
export interface TestApp {
  kind: StoreKind;
  /** The database URL of a Postgres store, for a second connection; else `undefined`. */
  storeUrl?: string;
  /**
   * With `{reachable: true}`: the environment a Ferry process (an operator
   * command) needs to open this instance's store and local datasource.
   */
  processEnv: Record<string, string>;
  services: Services;
  /** The plain backend beneath `services.store` (its serving store), for writes around the caches. */
  backend: Backend;
  clock: ManualClock;
  logger: MemoryLogger;
  /** The names of every object the datasource holds. */
  storedObjects(): Promise<string[]>;
  /** The app's own handler, for serving it on a port (`Deno.serve`). */
  fetch(req: Request): Promise<Response>;
  /** Every route the app answers (Hono's table: method and path pattern). */
  routes: readonly { method: string; path: string }[];
  /** Sends a request to the app; `path` is relative to the origin. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Sends JSON with `method`; returns status, parsed body and headers. */
  json(method: string, path: string, body?: unknown, headers?: HeadersInit): Promise<JsonReply>;
  close(): Promise<void>;
}

/** What {@link TestApp.json} returns. */
export interface JsonReply {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  headers: Headers;
}

/** What a test instance may be started with. */
export interface TestAppOptions {
  /** Environment variables the settings overrides (`SERVICE_<KEY>`) are read from. */
  env?: Record<string, string>;
  /**
   * Keep rate limiting on (the default setting). Off unless asked for, so that
   * tests sending many requests from one client test what they name.
   */
  rateLimits?: boolean;
  /** The datasource behind the app: local disk (the default) or a fresh s3rver bucket. */
  datasource?: DatasourceKind;
  /** The ffmpeg executable; by default the one on PATH (`null`: none). */
  ffmpeg?: string | null;
  /** Skip the test (a tool it needs is missing). */
  ignore?: boolean;
  /** Keep a Deno KV store in a file, not in memory, so that a second process reaches it. */
  reachable?: boolean;
  /** Custom dashboard themes, as if read from a themes directory at start. */
  themes?: Theme[];
}

/** Builds a test instance on a fresh store of `kind`. */
export async function startTestApp(
  kind: StoreKind,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const dataDir = options.reachable ? await Deno.makeTempDir({ prefix: "ferry-data-" }) : null;
  const { store: backend, url: storeUrl, drop } = await openTestStore(
    kind,
    dataDir ? `${dataDir}/ferry.kv` : undefined,
  );
  const testDatasource = await openTestDatasource(options.datasource ?? "local");
  const processEnv: Record<string, string> = {
    SERVICE_SECRET: TEST_SECRET,
    ...(dataDir ? { SERVICE_DATA_DIR: dataDir } : {}),
    ...(storeUrl ? { DATABASE_URL: storeUrl } : {}),
    ...(testDatasource.directory
      ? { SERVICE_DATASOURCE_LOCAL_DIRECTORY: testDatasource.directory }
      : {}),
  };
  const datasource = testDatasource.datasource;
  const clock = new ManualClock(Date.now());
  const store = servingStore(backend, clock);
  const logger = new MemoryLogger();
  const settings = new SettingsService(store, {
    context: fileSystemContext,
    clock,
    logger,
    overrides: parseSettingsEnv(options.env ?? {}, (path) => Deno.readTextFileSync(path)),
  });
  if (!options.rateLimits) await store.settings.update({ ratelimitEnabled: false });
  await settings.reload();
  const services: Services = {
    store,
    datasource,
    settings,
    clock,
    random: systemRandom,
    logger,
    secret: TEST_SECRET,
    build: { version: "0.0.0-test", commit: null },
    ffmpeg: options.ffmpeg === undefined ? await findFfmpeg(logger) : options.ffmpeg,
    themes: options.themes,
  };
  const { app, fetch } = createHandler(services, { checkResponses: true });
  const request = async (path: string, init?: RequestInit) =>
    await fetch(new Request(new URL(path, "http://ferry.test"), init));
  return {
    kind,
    storeUrl,
    processEnv,
    services,
    backend,
    clock,
    logger,
    storedObjects: testDatasource.stored,
    fetch: async (req) => await fetch(req),
    routes: app.routes,
    request,
    async json(method, path, body, headers) {
      const h = new Headers(headers);
      if (body !== undefined && !h.has("content-type")) h.set("content-type", "application/json");
      const res = await request(path, {
        method,
        headers: h,
        body: body === undefined
          ? undefined
          : typeof body === "string"
          ? body
          : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      // Ends the visits worker, if visits started one (what waits is written, as at shutdown).
      await closeVisits(services).catch(() => {});
      await testDatasource.dispose();
      await store.close();
      await drop();
      if (dataDir) await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** Registers `fn` as one test per store kind, each with its own fresh instance. */
export function apiTest(
  name: string,
  fn: (app: TestApp, t: Deno.TestContext) => Promise<void>,
  options?: TestAppOptions,
) {
  for (const kind of STORE_KINDS) {
    Deno.test({
      name: `${name} [${kind}]`,
      ignore: options?.ignore || ignoreKind(kind) ||
        (options?.datasource !== undefined && ignoreDatasource(options.datasource)),
      sanitizeResources: false,
      sanitizeOps: false,
      fn: async (t) => {
        const app = await startTestApp(kind, options);
        try {
          await fn(app, t);
        } finally {
          await app.close();
        }
      },
    });
  }
}

/** The session cookie pair (`service_session=…`) from a response, for the next request. */
export function sessionCookie(headers: Headers): string {
  const cookie = headers.getSetCookie().find((c) => c.startsWith("service_session="));
  if (!cookie) throw new Error("no session cookie was set");
  return cookie.split(";")[0];
}
