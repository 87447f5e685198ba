/**
 * TOTP codes (RFC 6238: SHA-1, 6 digits, 30-second steps, one step of drift
 * either way). Secrets are stored encrypted with the server secret. A code is
 * accepted once: the store remembers the last time step each user had
 * accepted and refuses that step and any earlier one (RFC 6238 §5.2). Every
 * code checked for an account, wherever it comes from (the login's second
 * step, the OAuth TOTP step, turning TOTP on or off), counts against the
 * account's own limit, {@link CODE_ATTEMPTS} in {@link CODE_WINDOW_MS},
 * besides the per-address limits of the routes: guessing from many
 * addresses gets no further than from one.
 */
import { Secret, TOTP } from "otpauth";
import type { SessionRecord } from "../db/sessions.ts";
import type { UserRecord } from "../db/users.ts";
import { confirmOwner } from "./confirm.ts";
import { ApiError, badRequest, forbidden, notFound } from "./errors.ts";
import { verifyPassword } from "./passwords.ts";
import { countRequest } from "./rate_limit.ts";
import type { Services } from "./services.ts";
import { decrypt, encrypt } from "./tokens.ts";

const PERIOD_S = 30;

/** The QR code writer, loaded by the first set-up (some 17 MiB a process at rest never needs). */
const qrCodes = async () => (await import("qrcode")).default;

const totp = (secret: string, label?: string, issuer?: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: PERIOD_S, label, issuer });

/** The time step of `code` for `secret` at `now` (±1 step), or `null` when it does not verify. */
export function matchCode(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / (PERIOD_S * 1000)) + delta;
}

/** Codes checked per account in {@link CODE_WINDOW_MS}, right or wrong, before a wait. */
export const CODE_ATTEMPTS = 5;
/** The window of {@link CODE_ATTEMPTS}: five minutes. */
export const CODE_WINDOW_MS = 5 * 60 * 1000;

/**
 * Counts one code checked for `user` against {@link CODE_ATTEMPTS}, in the
 * store so that every server process shares the count; past it, 429 with
 * `Retry-After` until the window ends, before the code is looked at. Right
 * codes count too: the store cannot take a count back, and a code is
 * accepted at most once a time step, so a person reaches the limit only by
 * mistyping. Follows `ratelimitEnabled`, as every limit does.
 */
async function limitCodes(s: Services, user: UserRecord): Promise<void> {
  if (!s.settings.get("ratelimitEnabled")) return;
  try {
    await countRequest(s, `totp-codes|${user.id}`, CODE_ATTEMPTS, CODE_WINDOW_MS);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 429) throw error;
    const retry = error.headers?.["Retry-After"] ?? "";
    throw new ApiError(
      429,
      `Too many codes were tried for this account; try again in ${retry} seconds`,
      undefined,
      error.headers,
    );
  }
}

/**
 * `true` when `code` verifies against `secret` now and its time step is
 * later than the last one the user had accepted, which it then becomes.
 * Counted against the account's limit first ({@link limitCodes}).
 */
async function acceptCode(s: Services, user: UserRecord, secret: string, code: string) {
  await limitCodes(s, user);
  const step = matchCode(secret, code, s.clock.now());
  return step !== null && await s.store.mfa.acceptTotpStep(user.id, step);
}

/** `true` when `code` verifies, once, against the user's stored (encrypted) TOTP secret. */
export async function verifyLoginCode(
  s: Services,
  user: UserRecord,
  code: string,
): Promise<boolean> {
  const secret = user.totpSecret && decrypt(user.totpSecret, s.secret);
  return secret !== null && await acceptCode(s, user, secret, code);
}

function requireTotpEnabled(s: Services): void {
  if (!s.settings.get("mfaTotpEnabled")) throw badRequest("TOTP is disabled");
}

/** What an authenticator app is set up with: the secret and its `otpauth://` QR code. */
export interface TotpSetup {
  /** Base32. */
  secret: string;
  /** A PNG data URI of the `otpauth://` URI. */
  qrcode: string;
}

/**
 * The user's TOTP setup (spec §4.3): a new random secret while none is
 * configured (nothing is stored until it is confirmed), the existing one after.
 */
export async function totpSetup(s: Services, user: UserRecord): Promise<TotpSetup> {
  requireTotpEnabled(s);
  const stored = user.totpSecret && decrypt(user.totpSecret, s.secret);
  const secret = stored ?? new Secret({ buffer: s.random.bytes(20).slice().buffer }).base32;
  const uri = totp(secret, user.username, s.settings.get("mfaTotpIssuer")).toString();
  return { secret, qrcode: await (await qrCodes()).toDataURL(uri) };
}

/**
 * Turns TOTP on with `secret` when `code` verifies against it; 400 `Invalid
 * code` otherwise. A secret in place is not replaced: turning TOTP off needs a
 * code of the current one, and so does changing it. Both need proof of the
 * owner (`confirm.ts`).
 */
export async function enableTotp(
  s: Services,
  user: UserRecord,
  input: { code: string; secret: string; currentPassword?: string },
  session: SessionRecord | null,
): Promise<UserRecord> {
  requireTotpEnabled(s);
  if (user.totpSecret !== null) throw badRequest("TOTP is already enabled");
  await confirmOwner(user, { currentPassword: input.currentPassword, session }, s.clock.now());
  const secret = input.secret.toUpperCase().replace(/[\s=]/g, "");
  if (!/^[A-Z2-7]{16,128}$/.test(secret) || !await acceptCode(s, user, secret, input.code)) {
    throw badRequest("Invalid code");
  }
  return await saveSecret(s, user, encrypt(secret, s.secret, s.random));
}

/**
 * Turns TOTP off when `code` verifies against the current secret: a valid
 * code is proof of the owner on its own (a fresh assertion of the second
 * factor, which a token or a session alone does not hold), so it needs no
 * password; 400 `Invalid code` otherwise. A `currentPassword` sent anyway
 * must be right (403 `Invalid current password`), checked before the code.
 */
export async function disableTotp(
  s: Services,
  user: UserRecord,
  input: { code: string; currentPassword?: string },
): Promise<UserRecord> {
  requireTotpEnabled(s);
  if (user.totpSecret === null) throw badRequest("You don't have TOTP enabled");
  const { currentPassword } = input;
  if (
    currentPassword !== undefined && user.password !== null &&
    !await verifyPassword(currentPassword, user.password)
  ) {
    throw forbidden("Invalid current password");
  }
  if (!await verifyLoginCode(s, user, input.code)) throw badRequest("Invalid code");
  return await saveSecret(s, user, null);
}

async function saveSecret(s: Services, user: UserRecord, totpSecret: string | null) {
  const updated = await s.store.users.update(user.id, { totpSecret }, new Date(s.clock.now()));
  if (!updated) throw notFound();
  return updated;
}
