/**
 * Rate limiting (spec §8.1): per route, not global. The counter key is the
 * user id (or the client IP when anonymous) with the method and the path;
 * each route has the default window from the settings or a stricter one of
 * its own. Counters are shared by every server process through the store
 * (counted in memory, exactly, while only one process counts: see
 * `db/rate_limit_owner.ts`).
 */
import type { UserRecord } from "../db/users.ts";
import { ApiError } from "./errors.ts";
import { optionLimit } from "./files/options.ts";
import { isAdministrator } from "./roles.ts";
import type { Services } from "./services.ts";

/**
 * A route's limit: the settings' default, none, or `max` requests per
 * `seconds`; `chunks` is the default for the chunked-upload route, whose
 * later chunks (requests naming their file in `x-service-p-filename`, spec
 * §8.1.3) of an upload the authenticated caller started are not counted: a
 * first chunk and every anonymous chunk are. No other route lets that header
 * bypass its limit.
 */
export type RateLimitPolicy = "default" | "chunks" | "none" | { max: number; seconds: number };

/** One request, as the limiter sees it. */
export interface RateLimitRequest {
  user: UserRecord | null;
  ip: string;
  method: string;
  path: string;
  /**
   * The upload a chunk names in `x-service-p-identifier`, when the request
   * carries a chunk's `x-service-p-filename`; else `null`. Not counted under
   * the `chunks` policy only, and only when it is the caller's own upload.
   */
  chunkOf: string | null;
  /**
   * The upload request a chunk goes through (`x-service-request`), under the
   * `chunks` policy; else `null`. A later chunk of an upload started through
   * the same request is not counted, as a user's own later chunk is not.
   */
  request?: string | null;
}

/** The limiter's verdict for a request it counted. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** When the window ends, in Unix seconds. */
  reset: number;
}

const SWEEP_EVERY_MS = 60_000;
let lastSweep = 0;

/** Whether a route with `policy` is limited at all now: not when limits are off. */
export function limitsApply(s: Services, policy: RateLimitPolicy): boolean {
  return policy !== "none" && s.settings.get("ratelimitEnabled");
}

/**
 * Counts the request against its route's limit. Returns the headers' values,
 * `null` when the request is not limited at all, and throws 429 past the limit.
 */
export async function checkRateLimit(
  s: Services,
  policy: RateLimitPolicy,
  req: RateLimitRequest,
): Promise<RateLimitState | null> {
  if (!limitsApply(s, policy)) return null;
  const settings = s.settings.all();
  if (
    policy === "chunks" && req.chunkOf !== null &&
    (req.user
      ? await continuesOwnUpload(s, req.user, req.chunkOf)
      : await continuesRequestUpload(s, req.request ?? null, req.chunkOf))
  ) return null;
  if (settings.ratelimitAdminBypass && req.user && isAdministrator(req.user.role)) return null;
  const who = req.user?.id ?? req.ip;
  const key = `${who}|${req.method}|${req.path}`;
  const allow = settings.ratelimitAllowList;
  if (allow.includes(req.ip) || allow.includes(who) || allow.includes(key)) return null;

  const { max, windowMs } = typeof policy === "string"
    ? { max: settings.ratelimitMax, windowMs: settings.ratelimitWindow }
    : { max: policy.max, windowMs: policy.seconds * 1000 };
  return await countRequest(s, key, max, windowMs);
}

/**
 * Counts one request for `key` in its fixed window of `windowMs`, `max` at
 * most: the window's state, or the 429 (with `Retry-After` and the
 * `X-RateLimit-*` headers) past the limit. The counting under every limit.
 */
export async function countRequest(
  s: Services,
  key: string,
  max: number,
  windowMs: number,
): Promise<RateLimitState> {
  const now = s.clock.now();
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const reset = Math.ceil((windowStart + windowMs) / 1000);
  const hit = await s.store.rateLimits.hit(key, windowStart, windowMs, max);
  sweepNowAndThen(s, now);
  if (!hit.allowed) {
    const retry = Math.max(1, reset - Math.floor(now / 1000));
    throw new ApiError(
      429,
      `Rate limit exceeded, retry in ${retry} second${retry === 1 ? "" : "s"}`,
      undefined,
      {
        "Retry-After": String(retry),
        "X-RateLimit-Limit": String(max),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": String(reset),
      },
    );
  }
  return { limit: max, remaining: max - hit.count, reset };
}

/** Removes ended windows about once a minute, without holding up the request. */
function sweepNowAndThen(s: Services, now: number): void {
  if (now - lastSweep < SWEEP_EVERY_MS) return;
  lastSweep = now;
  s.store.rateLimits.sweep(now).catch((error) =>
    s.logger.warn("rate-limit sweep failed", { error })
  );
}

/**
 * Whether `identifier` names an upload in progress that `user` started: only
 * such a later chunk goes uncounted by the rate limit (spec §8.1.3); a first
 * chunk, an anonymous one, or one naming another's or no upload is counted.
 * An identifier past its bound is never looked up.
 */
async function continuesOwnUpload(
  s: Services,
  user: UserRecord,
  identifier: string,
): Promise<boolean> {
  const upload = await uploadNamed(s, identifier);
  return upload !== null && upload.userId === user.id;
}

/**
 * Whether `identifier` names an upload in progress started through the
 * upload request of `code` (its first chunk was counted, and reserved its
 * size in the request): its later chunks go uncounted.
 */
async function continuesRequestUpload(
  s: Services,
  code: string | null,
  identifier: string,
): Promise<boolean> {
  if (!code) return false;
  const upload = await uploadNamed(s, identifier);
  if (!upload?.requestId || upload.userId !== null) return false;
  const request = await s.store.uploadRequests.getByCode(code.trim());
  return request !== null && request.id === upload.requestId;
}

/** The upload in progress `identifier` names; `null` for none, or one past its bound. */
async function uploadNamed(s: Services, identifier: string) {
  const id = identifier.trim();
  if (id === "" || id.length > optionLimit("p-identifier")) return null;
  return await s.store.chunks.get(id);
}
