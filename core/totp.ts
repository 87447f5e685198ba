/**
 * TOTP codes (RFC 6238: SHA-1, 6 digits, 30-second steps, one step of drift
 * either way). Secrets are stored encrypted with the server secret.
 */
import { Secret, TOTP } from "otpauth";
import type { UserRecord } from "../db/store.ts";
import type { Services } from "./services.ts";
import { decrypt } from "./tokens.ts";

/** The time step of `code` for `secret` at `now` (±1 step), or `null` when it does not verify. */
export function matchCode(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 30_000) + delta;
}

/** `true` when `code` verifies against the user's stored (encrypted) TOTP secret. */
export function verifyLoginCode(s: Services, user: UserRecord, code: string): Promise<boolean> {
  const secret = user.totpSecret && decrypt(user.totpSecret, s.secret);
  return Promise.resolve(secret !== null && matchCode(secret, code, s.clock.now()) !== null);
}
