/**
 * Proof that the person at the keyboard owns the account, asked before it
 * changes its own credentials (password, username, TOTP, passkeys): a token or
 * an old session cookie alone, perhaps stolen, is not enough. The proof is the
 * current password, or a session cookie signed in moments ago (within
 * {@link FRESH_SIGN_IN_MS}): signing in just asked for every factor the
 * account has, which is why Zipline's own client, which never sends a current
 * password, can change credentials right after sign-in. An account without a
 * password (made by OAuth or a passkey) has nothing to prove with and passes:
 * its session already is as strong as any credential it holds.
 */
import type { SessionRecord } from "../db/sessions.ts";
import type { UserRecord } from "../db/users.ts";
import { badRequest, forbidden } from "./errors.ts";
import { verifyPassword } from "./passwords.ts";

/** How long after signing in a session counts as proof on its own: ten minutes. */
export const FRESH_SIGN_IN_MS = 10 * 60 * 1000;

/** What a request offers as proof: a password it sent, and the session it came with (none for a token). */
export interface OwnerProof {
  currentPassword?: string;
  session: SessionRecord | null;
}

/**
 * Passes when `proof` shows the owner of `user` at `now`: a session signed in
 * less than {@link FRESH_SIGN_IN_MS} ago, or the right current password.
 * Otherwise 400 `currentPassword is required` when none was sent, 403
 * `Invalid current password` when it is wrong (a wrong password fails even
 * on a fresh session).
 */
export async function confirmOwner(
  user: UserRecord,
  proof: OwnerProof,
  now: number,
): Promise<void> {
  if (user.password === null) return;
  const { currentPassword, session } = proof;
  if (currentPassword === undefined) {
    if (session && now - session.createdAt.getTime() < FRESH_SIGN_IN_MS) return;
    throw badRequest("currentPassword is required");
  }
  if (!await verifyPassword(currentPassword, user.password)) {
    throw forbidden("Invalid current password");
  }
}
