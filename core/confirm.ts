/**
 * Proof that the person at the keyboard owns the account, asked before it
 * changes its own credentials (password, username, TOTP, passkeys): a session
 * cookie or token alone, perhaps stolen, is not enough. The proof is the
 * current password. An account without one (made by OAuth or a passkey) has
 * nothing to prove with and passes: its session already is as strong as any
 * credential it holds, and it can replace its API token without proof anyway.
 */
import type { UserRecord } from "../db/store.ts";
import { badRequest, forbidden } from "./errors.ts";
import { verifyPassword } from "./passwords.ts";

/**
 * Checks `currentPassword` against `user`'s password: 400 `currentPassword is
 * required` when it is missing, 403 `Invalid current password` when wrong.
 */
export async function confirmPassword(
  user: UserRecord,
  currentPassword: string | undefined,
): Promise<void> {
  if (user.password === null) return;
  if (currentPassword === undefined) throw badRequest("currentPassword is required");
  if (!await verifyPassword(currentPassword, user.password)) {
    throw forbidden("Invalid current password");
  }
}
