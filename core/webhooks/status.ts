/** What SUPERADMINs see of webhooks: the signing secret and the outbox size. */
import type { Services } from "../services.ts";
import { webhookSecret } from "./signature.ts";

/** The signing secret and the number of deliveries waiting. */
export async function webhookStatus(s: Services): Promise<{ secret: string; pending: number }> {
  return { secret: webhookSecret(s.secret), pending: await s.store.webhooks.pending() };
}
