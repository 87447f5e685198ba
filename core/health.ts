/**
 * The healthcheck: is the feature on, and do the store and the datasource
 * answer. Their answer is a probe at most {@link PROBE_MS} old, with one probe
 * in flight at a time, so that a load balancer polling the healthcheck costs
 * the store and the datasource one request a second at most.
 */
import { ApiError, notFound } from "./errors.ts";
import type { Services } from "./services.ts";

/** How long a probe's answer is used. */
export const PROBE_MS = 1000;

/** What the datasource is asked for: the size of an object that need not exist. */
const PROBE_OBJECT = ".ferry-healthcheck";

/** The last probe of a service: when it started, its answer, and that answer once it came. */
interface Probe {
  startedAt: number;
  passed: Promise<boolean>;
  settled?: boolean;
}

const probes = new WeakMap<Services, Probe>();

/** The healthcheck's answer. */
export const HEALTHY = { pass: true } as const;

/**
 * Answers from a probe of the store and the datasource at most a second old;
 * 404 when `featuresHealthcheck` is off, 500 when either failed.
 */
export async function healthcheck(s: Services): Promise<typeof HEALTHY> {
  if (!s.settings.get("featuresHealthcheck")) throw notFound();
  if (!await probe(s).passed) throw new ApiError(500, "there was an error during a healthcheck");
  return HEALTHY;
}

/**
 * The answer without waiting: {@link HEALTHY} while the feature is on and the
 * last probe passed less than a second ago; otherwise `null` (then ask
 * {@link healthcheck}).
 */
export function healthyNow(s: Services): typeof HEALTHY | null {
  if (!s.settings.get("featuresHealthcheck")) return null;
  const last = probes.get(s);
  const fresh = last !== undefined && s.clock.now() - last.startedAt < PROBE_MS;
  return fresh && last.settled === true ? HEALTHY : null;
}

/** The probe in flight, or the last one while under a second old; else a new one. */
function probe(s: Services): Probe {
  const now = s.clock.now();
  const last = probes.get(s);
  if (last && (last.settled === undefined || now - last.startedAt < PROBE_MS)) return last;
  const next: Probe = {
    startedAt: now,
    passed: Promise.all([s.store.ping(), s.datasource.size(PROBE_OBJECT)]).then(
      () => next.settled = true,
      (error) => {
        s.logger.error("healthcheck failed", { error });
        return next.settled = false;
      },
    ),
  };
  probes.set(s, next);
  return next;
}
