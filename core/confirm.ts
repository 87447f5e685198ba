/**
 * Proof that the person at the keyboard owns the account, asked before it
 * changes its own credentials (password, username, TOTP, passkeys, linked
 * provider accounts): a token or an old session cookie alone, perhaps
 * stolen, is not enough.
 *
 * An account with a password proves with it: the current password, or a
 * session cookie signed in with that password moments ago (within
 * {@link FRESH_SIGN_IN_MS}; signing in asked for the password and the TOTP
 * code when there is one, which is why Zipline's own client, which never
 * sends a current password, can change credentials right after sign-in). A
 * session signed in through a linked provider or a passkey is not proof for
 * such an account: a provider account is not the password it would replace.
 *
 * An account without a password (made by OAuth or a passkey) proves with
 * its own factors: a session signed in moments ago with its passkey or its
 * linked provider. A token or an older session never passes.
 */
import type { SessionRecord, SignInMethod } from "../db/sessions.ts";
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

/** The refusal of an account without a password when the request brings no fresh sign-in. */
export const NO_PASSWORD_PROOF =
  "This account has no password: sign in again with its passkey or linked account to confirm";

/** The sign-in methods whose fresh session proves the owner of `user`. */
function provingMethods(user: UserRecord): readonly SignInMethod[] {
  return user.password === null ? ["passkey", "oauth"] : ["password"];
}

/** `true` when `session` was signed in less than {@link FRESH_SIGN_IN_MS} before `now` by one of the account's own factors. */
export function freshSignIn(user: UserRecord, session: SessionRecord | null, now: number): boolean {
  return session !== null && session.userId === user.id &&
    now - session.createdAt.getTime() < FRESH_SIGN_IN_MS &&
    provingMethods(user).includes(session.method);
}

/**
 * Passes when `proof` shows the owner of `user` at `now`: a fresh sign-in
 * through the account's own factor ({@link freshSignIn}), or the right
 * current password. Otherwise, for an account with a password, 400
 * `currentPassword is required` when none was sent and 403 `Invalid current
 * password` when it is wrong (a wrong password fails even on a fresh
 * session); for one without, 400 {@link NO_PASSWORD_PROOF}.
 */
export async function confirmOwner(
  user: UserRecord,
  proof: OwnerProof,
  now: number,
): Promise<void> {
  const { currentPassword, session } = proof;
  if (user.password === null) {
    if (freshSignIn(user, session, now)) return;
    throw badRequest(NO_PASSWORD_PROOF);
  }
  if (currentPassword === undefined) {
    if (freshSignIn(user, session, now)) return;
    throw badRequest("currentPassword is required");
  }
  if (!await verifyPassword(currentPassword, user.password)) {
    throw forbidden("Invalid current password");
  }
}
