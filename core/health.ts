/** The healthcheck: is the feature on, and does the store answer. */
import { ApiError, notFound } from "./errors.ts";
import type { Services } from "./services.ts";

/** Pings the store; 404 when `featuresHealthcheck` is off, 500 when the store is down. */
export async function healthcheck(s: Services): Promise<{ pass: true }> {
  if (!s.settings.get("featuresHealthcheck")) throw notFound();
  try {
    await s.store.ping();
  } catch (error) {
    s.logger.error("healthcheck failed", { error });
    throw new ApiError(500, "there was an error during a healthcheck");
  }
  return { pass: true };
}
