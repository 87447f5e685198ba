/**
 * The healthcheck: is the feature on, and do the store and the datasource
 * answer. Their answer is a probe at most {@link PROBE_MS} old, with one probe
 * in flight at a time, so that a load balancer polling the healthcheck costs
 * the store and the datasource one request a second at most.
 */
import { FreshCache } from "../db/fresh_cache.ts";
import { ApiError, notFound } from "./errors.ts";
import { perServices, type Services } from "./services.ts";

/** How long a probe's answer is used. */
export const PROBE_MS = 1000;

/**
 * How long before its answer's second ends a healthcheck starts the next
 * probe: with the store busy (a bulk delete's commits ahead of the probe's
 * read) the probe takes its time off the request path, and while it takes
 * under this the healthchecks never wait for one.
 */
export const PROBE_AHEAD_MS = 500;

/** What the datasource is asked for: the size of an object that need not exist. */
const PROBE_OBJECT = ".ferry-healthcheck";

/** The last probe of each instance: whether it passed, for {@link PROBE_MS} from its start. */
const probes = perServices((_: Services) =>
  new FreshCache<boolean>({
    ttlMs: PROBE_MS,
    refreshAheadMs: PROBE_AHEAD_MS,
    maxEntries: 1,
    maxBytes: 1024,
  })
);

/** The healthcheck's answer. */
export const HEALTHY = { pass: true } as const;

/**
 * Answers from a probe of the store and the datasource at most a second old;
 * 404 when `featuresHealthcheck` is off, 500 when either failed.
 */
export async function healthcheck(s: Services): Promise<typeof HEALTHY> {
  if (!s.settings.get("featuresHealthcheck")) throw notFound();
  if (!await probes(s).get("", s.clock.now(), () => probe(s))) {
    throw new ApiError(500, "there was an error during a healthcheck");
  }
  return HEALTHY;
}

/**
 * The answer without waiting: {@link HEALTHY} while the feature is on and the
 * last probe passed less than a second ago; otherwise `null` (then ask
 * {@link healthcheck}). In that second's last {@link PROBE_AHEAD_MS}, it
 * starts the next probe.
 */
export function healthyNow(s: Services): typeof HEALTHY | null {
  if (!s.settings.get("featuresHealthcheck")) return null;
  return probes(s).peek("", s.clock.now(), () => probe(s))?.value === true ? HEALTHY : null;
}

/** Probes the store and the datasource: `false` (logged) when either fails. */
async function probe(s: Services): Promise<boolean> {
  try {
    await Promise.all([s.store.ping(), s.datasource.size(PROBE_OBJECT)]);
    return true;
  } catch (error) {
    s.logger.error("healthcheck failed", { error });
    return false;
  }
}
