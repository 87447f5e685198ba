/**
 * Logging in with a username and password. Unknown users, users without a
 * password and wrong passwords all get the same answer after about the same
 * time. A user with TOTP must also send a valid code.
 */
import type { UserRecord } from "../db/store.ts";
import { badRequest } from "./errors.ts";
import { verifyDecoy, verifyPassword } from "./passwords.ts";
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
  const user = await s.store.getUserByUsername(input.username);
  const ok = user?.password
    ? await verifyPassword(input.password, user.password)
    : await verifyDecoy(input.password);
  if (!user || !ok) throw badRequest("Invalid username or password");
  if (user.totpSecret !== null) {
    if (input.code === undefined) return { totp: true };
    if (!(await verifyLoginCode(s, user, input.code))) throw badRequest("Invalid code");
  }
  const { secret } = await startSession(s, user, client);
  return { user, secret };
}
