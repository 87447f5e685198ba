/**
 * The webhook signing secret in force: the `httpWebhookSigningSecret` setting
 * once a SUPERADMIN has rotated it (`status.ts`), else the one derived from
 * the server secret.
 */
import type { Random } from "../clock.ts";
import type { Services } from "../services.ts";
import { webhookSecret } from "./signature.ts";

/** The setting that holds a rotated signing secret. */
export const SIGNING_SECRET_KEY = "httpWebhookSigningSecret";

/** The secret HTTP deliveries are signed with now. */
export function signingSecret(s: Services): string {
  return s.settings.get(SIGNING_SECRET_KEY) ?? webhookSecret(s.secret);
}

/** A fresh signing secret: `whsec_` and 32 random bytes in hex. */
export function newSigningSecret(random: Random): string {
  return "whsec_" + Array.from(random.bytes(32), (b) => b.toString(16).padStart(2, "0")).join("");
}
