/**
 * Signing HTTP webhook deliveries, so receivers can tell they came from this
 * instance: `x-service-signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`
 * with the `x-service-webhook-timestamp` header (Unix seconds). The key is
 * derived from the server secret, so every instance of one deployment signs
 * alike and nothing more needs storing.
 */
import { createHmac } from "node:crypto";

/** The instance's webhook signing secret, shown to SUPERADMINs. */
export function webhookSecret(serverSecret: string): string {
  return "whsec_" +
    createHmac("sha256", serverSecret).update("ferry webhook signing").digest("hex");
}

/** The signature header's value for `body` sent at `timestamp` (Unix seconds). */
export function signature(secret: string, timestamp: number, body: string): string {
  return "sha256=" + createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}
