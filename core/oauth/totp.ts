/**
 * The second step of an OAuth sign-in for a user with TOTP: the callback
 * hands the browser a ticket (an id, the user, an expiry, sealed with the
 * server secret) instead of a session, and the session starts only when a
 * valid code comes with the ticket, as it would after a password.
 *
 * A ticket is used up by the attempt that presents it, on every server
 * process: the store counts each ticket's id in a window that lasts until
 * the ticket expires and allows it once. A wrong code hands back a new ticket
 * with the same expiry, so the person may type the code again (each try also
 * counts against the account's code limit, `core/totp.ts`), while a copy of a
 * used ticket opens nothing. A ticket also names the user's API token as it
 * was (by an HMAC): a new password, which replaces the token, voids the
 * tickets issued before it, as it ends the sessions.
 */
import type { UserRecord } from "../../db/users.ts";
import { badRequest } from "../errors.ts";
import { base64url, hmac } from "../secrets.ts";
import type { Services } from "../services.ts";
import { type ClientInfo, startSession } from "../sessions.ts";
import { verifyLoginCode } from "../totp.ts";
import { seal, unseal } from "./sealed.ts";

/** The cookie holding the ticket. */
export const TOTP_TICKET_COOKIE = "service_oauth_totp";
/** How long the code may take: 5 minutes. */
export const TOTP_TICKET_TTL_MS = 5 * 60 * 1000;

/** What a ticket holds. */
interface Ticket {
  /** Random: what the store counts the ticket's use under. */
  id: string;
  userId: string;
  /** An HMAC of the user's stored token when the ticket was issued. */
  token: string;
  expiresAt: number;
}

/** The HMAC of `user`'s stored token that a ticket carries. */
const tokenMark = (s: Services, user: UserRecord) => hmac(s.secret, `oauth-totp ${user.token}`);

/** A ticket for `user` that expires at `expiresAt`. */
function ticketFor(s: Services, user: UserRecord, expiresAt: number): string {
  const ticket: Ticket = {
    id: base64url(s.random.bytes(16)),
    userId: user.id,
    token: tokenMark(s, user),
    expiresAt,
  };
  return seal(s, "oauth-totp", ticket);
}

/** A sealed ticket for `user`'s second step. */
export function issueTotpTicket(s: Services, user: UserRecord): string {
  return ticketFor(s, user, s.clock.now() + TOTP_TICKET_TTL_MS);
}

/**
 * Uses `ticket` up: `true` the first time on any server process, `false`
 * after. The store keeps the use until the ticket expires (a rate-limit
 * window of one, from its issue to its expiry).
 */
async function useOnce(s: Services, ticket: Ticket): Promise<boolean> {
  const issued = ticket.expiresAt - TOTP_TICKET_TTL_MS;
  const hit = await s.store.rateLimits.hit(
    `oauth-totp-ticket|${ticket.id}`,
    issued,
    TOTP_TICKET_TTL_MS,
    1,
  );
  return hit.allowed;
}

/** The outcome of the second step: a session, or a wrong code and the ticket to try again with. */
export type TotpStepResult =
  | { kind: "session"; user: UserRecord; secret: string }
  | { kind: "retry"; ticket: string };

/**
 * Checks the ticket and the code, then starts the session. A ticket that is
 * missing, forged, expired, used, or older than the user's last new password
 * is 400 `The sign-in has expired, start again`; a wrong code uses the
 * ticket up and answers a new one (the route says `Invalid code`).
 */
export async function finishTotpStep(
  s: Services,
  sealed: string | undefined,
  code: string,
  client: ClientInfo,
): Promise<TotpStepResult> {
  const ticket = unseal<Ticket>(s, "oauth-totp", sealed);
  const live = ticket !== null && typeof ticket.id === "string" &&
    typeof ticket.userId === "string" && ticket.expiresAt > s.clock.now();
  const user = live ? await s.store.users.get(ticket.userId) : null;
  const expired = badRequest("The sign-in has expired, start again");
  if (!user || ticket!.token !== tokenMark(s, user)) throw expired;
  if (!await useOnce(s, ticket!)) throw expired;
  if (!(await verifyLoginCode(s, user, code))) {
    return { kind: "retry", ticket: ticketFor(s, user, ticket!.expiresAt) };
  }
  const { secret } = await startSession(s, user, client, "oauth");
  return { kind: "session", user, secret };
}
