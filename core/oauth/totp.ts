/**
 * The second step of an OAuth sign-in for a user with TOTP: the callback
 * hands the browser a ticket (the user id and an expiry, sealed with the
 * server secret) instead of a session, and the session starts only when a
 * valid code comes with the ticket, as it would after a password.
 */
import type { UserRecord } from "../../db/store.ts";
import { badRequest } from "../errors.ts";
import type { Services } from "../services.ts";
import { type ClientInfo, startSession } from "../sessions.ts";
import { decrypt, encrypt } from "../tokens.ts";
import { verifyLoginCode } from "../totp.ts";

/** The cookie holding the ticket. */
export const TOTP_TICKET_COOKIE = "service_oauth_totp";
/** How long the code may take: 5 minutes. */
export const TOTP_TICKET_TTL_MS = 5 * 60 * 1000;

/** A sealed ticket for `user`'s second step. */
export function issueTotpTicket(s: Services, user: UserRecord): string {
  const ticket = { userId: user.id, expiresAt: s.clock.now() + TOTP_TICKET_TTL_MS };
  return encrypt(JSON.stringify(ticket), s.secret, s.random);
}

/** Checks the ticket and the code, then starts the session. */
export async function finishTotpStep(
  s: Services,
  ticket: string | undefined,
  code: string,
  client: ClientInfo,
): Promise<{ user: UserRecord; secret: string }> {
  const plain = ticket ? decrypt(ticket, s.secret) : null;
  const parsed = plain ? JSON.parse(plain) as { userId: string; expiresAt: number } : null;
  const user = parsed && parsed.expiresAt > s.clock.now()
    ? await s.store.getUser(parsed.userId)
    : null;
  if (!user) throw badRequest("The sign-in has expired, start again");
  if (!(await verifyLoginCode(s, user, code))) throw badRequest("Invalid code");
  const { secret } = await startSession(s, user, client);
  return { user, secret };
}
