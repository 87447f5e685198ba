/**
 * `GET /api/version`: the running build and, while `featuresVersionChecking`
 * is on with a `featuresVersionAPI`, what that version service says of it,
 * asked as Zipline asks it (`<api>/?details={"version","sha"}`). The service
 * is asked at most once per {@link FRESH_MS} (a failure: once per
 * {@link RETRY_MS}), with a short timeout, and one request at a time: when
 * it cannot be reached the answer is the build's own, without an error and
 * without waiting on every call. The service is asked as webhooks are sent
 * (`net/outbound.ts`: never inside unless allowed, redirects checked), and at
 * most {@link MAX_ANSWER_BYTES} of its answer are read.
 */
import { z } from "zod";
import { FreshCache } from "../db/fresh_cache.ts";
import { outboundPolicy, readLimited, safeFetch } from "./net/outbound.ts";
import { perServices, type Services } from "./services.ts";

/** How long the service's answer is used before it is asked again (Zipline: 6 hours). */
export const FRESH_MS = 6 * 60 * 60 * 1000;
/** How long after a failed ask the build's own answer is used before asking again. */
export const RETRY_MS = 10 * 60 * 1000;
/** How long one ask may take. */
export const TIMEOUT_MS = 2000;
/** The most of the service's answer that is read; a longer one is a failed ask. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The version service's answer (Zipline's `VersionAPI`); unknown fields are dropped. */
export const VersionDataSchema = z.object({
  isUpstream: z.boolean(),
  isRelease: z.boolean(),
  isLatest: z.boolean(),
  version: z.object({ tag: z.string(), sha: z.string().nullable(), url: z.string().optional() }),
  latest: z.object({
    tag: z.string(),
    url: z.string(),
    commit: z.object({ sha: z.string(), url: z.string(), pull: z.boolean() }).optional(),
  }).optional(),
});

/** What `data` holds: the service's answer, or the build's own in its shape. */
export type VersionData = z.infer<typeof VersionDataSchema>;

/** Each instance's answers of the service by its address: `null` when it could not be asked. */
const remembered = perServices((_: Services) =>
  new FreshCache<VersionData | null>({
    ttlMs: (data) => data ? FRESH_MS : RETRY_MS,
    maxEntries: 4,
    maxBytes: 64 * 1024,
  })
);

/** The build as a current release, in the service's shape: what is known without asking. */
function ownAnswer(build: Services["build"]): VersionData {
  return {
    isUpstream: false,
    isRelease: true,
    isLatest: true,
    version: { tag: `v${build.version}`, sha: build.commit },
  };
}

/** Asks the service once; `null` (logged) when it cannot be reached or answers nonsense. */
async function ask(s: Services, api: string): Promise<VersionData | null> {
  const url = new URL(api);
  url.pathname = "/";
  url.searchParams.set(
    "details",
    JSON.stringify({ version: s.build.version, sha: s.build.commit }),
  );
  try {
    const response = await safeFetch(
      url,
      { signal: AbortSignal.timeout(TIMEOUT_MS) },
      outboundPolicy(s),
    );
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status}`);
    }
    const parsed = VersionDataSchema.safeParse(
      JSON.parse(await readLimited(response, MAX_ANSWER_BYTES)),
    );
    if (!parsed.success) throw new Error("not a version answer");
    return parsed.data;
  } catch (error) {
    s.logger.warn("the version service could not be asked", {
      api,
      error: (error as Error).message,
    });
    return null;
  }
}

/** The service's answer while fresh, asking it when due; `cached` when it was not asked now. */
async function checked(s: Services, api: string): Promise<{ data: VersionData; cached: boolean }> {
  const memo = remembered(s);
  const now = s.clock.now();
  const kept = memo.peek(api, now);
  const data = kept ? kept.value : await memo.get(api, now, () => ask(s, api));
  return { data: data ?? ownAnswer(s.build), cached: kept !== undefined };
}

/**
 * `GET /api/version`: Ferry's `version` and `commit`, Zipline's `details`,
 * and `data`: the version service's word when checking is on and it answers,
 * the build's own (a current release) otherwise.
 */
export async function versionInfo(s: Services) {
  const { version, commit } = s.build;
  const api = s.settings.get("featuresVersionAPI");
  const on = s.settings.get("featuresVersionChecking") && api !== null;
  const { data, cached } = on ? await checked(s, api) : { data: ownAnswer(s.build), cached: false };
  return { version, commit, details: { version, sha: commit }, data, cached };
}
