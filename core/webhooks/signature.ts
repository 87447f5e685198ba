/**
 * Signing HTTP webhook deliveries, so receivers can tell they came from this
 * instance: `x-service-signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`
 * with the `x-service-webhook-timestamp` header (Unix seconds). Until a
 * SUPERADMIN rotates it (`secret.ts`), the key is derived from the server
 * secret, so every instance of one deployment signs alike.
 */
import { createHmac } from "node:crypto";

/** The signing secret derived from the server secret: in force while none is set. */
export function webhookSecret(serverSecret: string): string {
  return "whsec_" +
    createHmac("sha256", serverSecret).update("ferry webhook signing").digest("hex");
}

/** The signature header's value for `body` sent at `timestamp` (Unix seconds). */
export function signature(secret: string, timestamp: number, body: string): string {
  return "sha256=" + createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}
