/**
 * The second step of an OAuth sign-in for a user with TOTP: the callback
 * hands the browser a ticket (the user id and an expiry, sealed with the
 * server secret) instead of a session, and the session starts only when a
 * valid code comes with the ticket, as it would after a password.
 */
import type { UserRecord } from "../../db/users.ts";
import { badRequest } from "../errors.ts";
import type { Services } from "../services.ts";
import { type ClientInfo, startSession } from "../sessions.ts";
import { verifyLoginCode } from "../totp.ts";
import { seal, unseal } from "./sealed.ts";

/** The cookie holding the ticket. */
export const TOTP_TICKET_COOKIE = "service_oauth_totp";
/** How long the code may take: 5 minutes. */
export const TOTP_TICKET_TTL_MS = 5 * 60 * 1000;

/** A sealed ticket for `user`'s second step. */
export function issueTotpTicket(s: Services, user: UserRecord): string {
  return seal(s, "oauth-totp", { userId: user.id, expiresAt: s.clock.now() + TOTP_TICKET_TTL_MS });
}

/** Checks the ticket and the code, then starts the session. */
export async function finishTotpStep(
  s: Services,
  ticket: string | undefined,
  code: string,
  client: ClientInfo,
): Promise<{ user: UserRecord; secret: string }> {
  const parsed = unseal<{ userId: string; expiresAt: number }>(s, "oauth-totp", ticket);
  const live = parsed && parsed.expiresAt > s.clock.now() && typeof parsed.userId === "string";
  const user = live ? await s.store.users.get(parsed.userId) : null;
  if (!user) throw badRequest("The sign-in has expired, start again");
  if (!(await verifyLoginCode(s, user, code))) throw badRequest("Invalid code");
  const { secret } = await startSession(s, user, client);
  return { user, secret };
}
