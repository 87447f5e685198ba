/**
 * Invites and registration. An administrator makes invites (a random code of
 * `invitesLength`, an optional expiry and use limit); anyone registers with
 * one, or without one when `featuresUserRegistration` is on. A registration
 * counts its invite's use atomically in the store, so `maxUses` holds even
 * under concurrent registrations.
 */
import type { InviteRecord } from "../db/invites.ts";
import type { UserRecord } from "../db/users.ts";
import { UniqueError } from "../db/errors.ts";
import { newId, randomString } from "./clock.ts";
import { ApiError, badRequest } from "./errors.ts";
import type { Services } from "./services.ts";
import { type ClientInfo, startSession } from "./sessions.ts";
import { parseDuration } from "./units/duration.ts";
import { buildUser } from "./users.ts";

const inviteNotFound = () => new ApiError(404, "Invite not found");
/** How many random codes to try before giving up. */
const CODE_ATTEMPTS = 10;

/** An invite as the API shows it, with its inviter when known. */
export function inviteView(i: InviteRecord, inviter?: UserRecord | null) {
  return {
    id: i.id,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
    expiresAt: i.expiresAt?.toISOString() ?? null,
    code: i.code,
    uses: i.uses,
    maxUses: i.maxUses,
    inviterId: i.inviterId,
    ...(inviter === undefined ? {} : {
      inviter: inviter && { id: inviter.id, username: inviter.username, role: inviter.role },
    }),
  };
}

/**
 * When an invite made at `now` expires: `never` (null), `date=<date>`, or a
 * duration such as `1d`; 400 for anything else or a time not in the future.
 */
export function parseInviteExpiry(value: string, now: number): Date | null {
  const text = value.trim().toLowerCase();
  if (text === "never") return null;
  const at = text.startsWith("date=")
    ? Date.parse(value.trim().slice(5))
    : now + (parseDuration(text) ?? NaN);
  if (!Number.isFinite(at) || at <= now) {
    throw badRequest("expiresAt must be never, a duration such as 1d, or date=<a future date>");
  }
  return new Date(at);
}

/** Creates an invite from `caller`. */
export async function createInvite(
  s: Services,
  caller: UserRecord,
  input: { expiresAt: string; maxUses?: number | null },
): Promise<InviteRecord> {
  const now = s.clock.now();
  const expiresAt = parseInviteExpiry(input.expiresAt, now);
  for (let attempt = 1;; attempt++) {
    const invite: InviteRecord = {
      id: newId(s.random, now),
      code: randomString(s.random, s.settings.get("invitesLength")),
      expiresAt,
      uses: 0,
      maxUses: input.maxUses ?? null,
      inviterId: caller.id,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    };
    try {
      await s.store.invites.create(invite);
      return invite;
    } catch (error) {
      if (!(error instanceof UniqueError) || attempt >= CODE_ATTEMPTS) throw error;
    }
  }
}

/** Every invite with its inviter, oldest first. */
export async function listInvites(s: Services) {
  const invites = await s.store.invites.list();
  const inviters = new Map<string, UserRecord | null>();
  for (const id of new Set(invites.map((i) => i.inviterId))) {
    inviters.set(id, await s.store.users.get(id));
  }
  return invites.map((i) => ({ invite: i, inviter: inviters.get(i.inviterId) ?? null }));
}

/** The invite with this id or code, with its inviter; 404 otherwise. */
export async function getInvite(s: Services, idOrCode: string) {
  const invite = await s.store.invites.get(idOrCode) ??
    await s.store.invites.getByCode(idOrCode);
  if (!invite) throw inviteNotFound();
  return { invite, inviter: await s.store.users.get(invite.inviterId) };
}

/** Deletes the invite with this id; returns it. */
export async function deleteInvite(s: Services, id: string): Promise<InviteRecord> {
  const removed = await s.store.invites.delete(id);
  if (!removed) throw inviteNotFound();
  return removed;
}

/** `true` while the invite can still be used at `now`. */
function usable(i: InviteRecord, now: number): boolean {
  return (i.expiresAt === null || i.expiresAt.getTime() > now) &&
    (i.maxUses === null || i.uses < i.maxUses);
}

/**
 * What the registration page shows about an invite code: `null` without a
 * code; 404 when invites are off or the code is unknown, expired or used up.
 */
export async function publicInvite(s: Services, code: string | undefined) {
  if (code === undefined) return null;
  const invite = s.settings.get("invitesEnabled") ? await s.store.invites.getByCode(code) : null;
  if (!invite || !usable(invite, s.clock.now())) throw new ApiError(404, "Not Found");
  const inviter = await s.store.users.get(invite.inviterId);
  return {
    code: invite.code,
    maxUses: invite.maxUses,
    uses: invite.uses,
    inviter: { username: inviter?.username ?? null },
  };
}

/**
 * Creates a USER account and logs it in. With `code` (an invite id or code)
 * invites must be on and the invite usable; without, open registration must
 * be on. A username clash gives the invite's use back.
 */
export async function register(
  s: Services,
  input: { username: string; password: string; code?: string },
  client: ClientInfo,
): Promise<{ user: UserRecord; secret: string }> {
  let invite: InviteRecord | null = null;
  if (input.code !== undefined) {
    if (!s.settings.get("invitesEnabled")) throw badRequest("Invites aren't enabled");
    invite = await s.store.invites.get(input.code) ??
      await s.store.invites.getByCode(input.code);
    if (!invite) throw badRequest("Invalid invite code");
  } else if (!s.settings.get("featuresUserRegistration")) {
    throw badRequest("User registration is disabled");
  }
  const taken = () => badRequest("Username is taken");
  if (await s.store.users.getByUsername(input.username)) throw taken();
  const user = await buildUser(s, { ...input, role: "USER" });
  if (invite && !(await s.store.invites.use(invite.id, new Date(s.clock.now())))) {
    throw badRequest("Invalid invite code");
  }
  try {
    await s.store.users.create(user);
  } catch (error) {
    if (invite) await s.store.invites.release(invite.id);
    throw error instanceof UniqueError && error.field === "username" ? taken() : error;
  }
  s.logger.info("user registered", { username: user.username, invite: invite?.id ?? null });
  const { secret } = await startSession(s, user, client, "password");
  return { user, secret };
}
