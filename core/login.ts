/**
 * Logging in with a username and password. Unknown users, users without a
 * password and wrong passwords all get the same answer, in the same time: an
 * unknown user costs a verification against the decoy, made with Ferry's own
 * parameters as every hash Ferry stores is. A user with TOTP must also send a
 * valid code. A successful login rehashes a password hash made with other
 * parameters (an imported Zipline hash) with Ferry's.
 */
import type { UserRecord } from "../db/users.ts";
import { badRequest } from "./errors.ts";
import { hashPassword, needsRehash, verifyDecoy, verifyPassword } from "./passwords.ts";
import type { Services } from "./services.ts";
import { type ClientInfo, startSession } from "./sessions.ts";
import { verifyLoginCode } from "./totp.ts";

/** The outcome of a login: a session, or the request for a TOTP code. */
export type LoginResult = { totp: true } | { user: UserRecord; secret: string };

/** Checks the credentials and starts a session. */
export async function login(
  s: Services,
  input: { username: string; password: string; code?: string },
  client: ClientInfo,
): Promise<LoginResult> {
  const user = await s.store.users.getByUsername(input.username);
  const ok = user?.password
    ? await verifyPassword(input.password, user.password)
    : await verifyDecoy(input.password);
  if (!user || !ok) throw badRequest("Invalid username or password");
  if (user.totpSecret !== null) {
    if (input.code === undefined) return { totp: true };
    if (!(await verifyLoginCode(s, user, input.code))) throw badRequest("Invalid code");
  }
  if (needsRehash(user.password!)) await rehash(s, user, input.password);
  const { secret } = await startSession(s, user, client, "password");
  return { user, secret };
}

/** Stores `password` hashed with Ferry's parameters in place of the user's older hash. */
async function rehash(s: Services, user: UserRecord, password: string): Promise<void> {
  const hash = await hashPassword(password, s.random);
  await s.store.users.update(user.id, { password: hash }, new Date(s.clock.now()));
}
