/**
 * Values the OAuth flow hands to the browser in cookies, sealed with the
 * server secret (AES-GCM, `core/tokens.ts`) and labelled with their purpose,
 * so that one sealed value (a flow, a TOTP ticket, an API token) cannot be
 * passed off as another.
 */
import type { Services } from "../services.ts";
import { decrypt, encrypt } from "../tokens.ts";

/** What a sealed value is for. */
export type SealPurpose = "oauth-flow" | "oauth-totp";

/** Seals `value` for `purpose`. */
export function seal(s: Services, purpose: SealPurpose, value: object): string {
  return encrypt(JSON.stringify({ purpose, value }), s.secret, s.random);
}

/** The value sealed for `purpose`, or `null` when it is missing, forged or for something else. */
export function unseal<T>(s: Services, purpose: SealPurpose, sealed: string | undefined): T | null {
  const plain = sealed ? decrypt(sealed, s.secret) : null;
  if (plain === null) return null;
  try {
    const parsed = JSON.parse(plain);
    return parsed?.purpose === purpose ? parsed.value as T : null;
  } catch {
    return null;
  }
}
