/**
 * What a finished OAuth flow does to accounts: signs in the user the
 * provider's account is linked to (asking for a TOTP code first when the
 * user has one), registers a new user when that is allowed, or links the
 * account to the signed-in user; and the linked-accounts list and unlinking.
 * A provider account links to one user only, and a user keeps at least one
 * way to sign in. Linking and unlinking change how the account signs in, so
 * both need proof of the owner (`confirm.ts`), and linking needs the
 * browser's session: an API token never links.
 */
import type { OauthLinkRecord, OauthProvider } from "../../db/oauth.ts";
import type { SessionRecord } from "../../db/sessions.ts";
import type { UserRecord } from "../../db/users.ts";
import { UniqueError } from "../../db/errors.ts";
import { defaultAvatar } from "../avatars.ts";
import { newId } from "../clock.ts";
import { confirmOwner, FRESH_SIGN_IN_MS, freshSignIn } from "../confirm.ts";
import { ApiError, badRequest, forbidden } from "../errors.ts";
import type { Services } from "../services.ts";
import { type ClientInfo, fromSameOrigin, type RequestSource, startSession } from "../sessions.ts";
import { decrypt, encrypt } from "../tokens.ts";
import { buildUser } from "../users.ts";
import { type FlowResult, startFlow } from "./flow.ts";
import type { Preset } from "./providers.ts";
import { issueTotpTicket } from "./totp.ts";

/** The outcome of a flow: a session, a TOTP code to ask for, or a new link. */
export type OauthOutcome =
  | { kind: "session"; user: UserRecord; secret: string }
  | { kind: "totp"; ticket: string }
  | { kind: "linked"; user: UserRecord };

/** A provider token as the store keeps it: sealed with the server secret. */
export function sealProviderToken(s: Pick<Services, "secret" | "random">, token: string): string {
  return encrypt(token, s.secret, s.random);
}

/** A stored provider token in clear; one stored before tokens were sealed is returned as is. */
export function openProviderToken(s: Services, stored: string): string {
  return decrypt(stored, s.secret) ?? stored;
}

/** The link's fields a flow gives: the account's name and its tokens, sealed. */
function sealed(s: Services, result: FlowResult) {
  return {
    username: result.profile.username,
    accessToken: sealProviderToken(s, result.accessToken),
    refreshToken: result.refreshToken && sealProviderToken(s, result.refreshToken),
  };
}

/** Who makes a request: the user, and the session it came with (`null` for an API token). */
export interface OauthCaller {
  user: UserRecord | null;
  session: SessionRecord | null;
}

/** What a request to link brings beside its caller. */
export interface LinkProof {
  /** The caller's password, when the account has one and the sign-in is not fresh. */
  currentPassword?: string;
  /**
   * Where the request comes from, for the old start by `GET ?state=link`
   * (Zipline's web client), which a link on any page could trigger: set, the
   * request must come from the service's own pages and its proof is a fresh
   * sign-in only.
   */
  source?: RequestSource;
}

/**
 * Starts linking a provider account to the caller: the provider's URL and
 * the flow's sealed cookie. A link is a new way to sign in, so it needs the
 * browser's session (403 for an API token, 401 for no one) and proof of the
 * owner (`confirm.ts`); the flow is bound to the session, and the callback
 * links only for it, still alive (a new password, which ends the session,
 * leaves the flow unable to link).
 */
export async function startLink(
  s: Services,
  preset: Preset,
  redirectUri: string,
  caller: OauthCaller,
  proof: LinkProof,
): Promise<{ url: string; cookie: string }> {
  const { user, session } = caller;
  if (!user) throw new ApiError(401, "Invalid login session");
  if (!session) {
    throw forbidden("Linking an account needs a signed-in browser session, not an API token");
  }
  if (proof.source) {
    // `Sec-Fetch-Site: none` is a link opened from outside the browser: not this site's page.
    if (proof.source.fetchSite === "none" || !fromSameOrigin(proof.source)) {
      throw forbidden("Linking an account must start from this site's own pages");
    }
    if (!freshSignIn(user, session, s.clock.now())) {
      const minutes = FRESH_SIGN_IN_MS / 60_000;
      throw badRequest(
        user.password === null
          ? `Linking an account needs a sign-in less than ${minutes} minutes old with your ` +
            "passkey or linked account: sign in again, then link"
          : `Linking an account needs a sign-in less than ${minutes} minutes old with your ` +
            "password: sign in again, or link from the account page with your password",
      );
    }
  } else {
    await confirmOwner(user, { currentPassword: proof.currentPassword, session }, s.clock.now());
  }
  return await startFlow(s, preset, redirectUri, {
    kind: "link",
    userId: user.id,
    sessionId: session.id,
  });
}

/** Applies a finished flow: signs in, registers, or links (see the module doc). */
export async function completeOauth(
  s: Services,
  preset: Preset,
  result: FlowResult,
  client: ClientInfo,
  caller: OauthCaller,
): Promise<OauthOutcome> {
  const { profile } = result;
  if (!preset.admits(s.settings.all(), profile.oauthId)) {
    s.logger.info("oauth account refused by the lists", { provider: preset.slug });
    throw forbidden("OAuth login is not allowed for this account");
  }
  if (result.mode.kind === "link") {
    const { user, session } = caller;
    if (
      !user || user.id !== result.mode.userId || session?.id !== result.mode.sessionId
    ) {
      throw new ApiError(401, "Invalid login session");
    }
    return await link(s, preset, result, user);
  }
  const existing = await s.store.oauth.find(preset.provider, profile.oauthId);
  const user = existing
    ? await s.store.users.get(existing.userId)
    : await register(s, preset, result);
  if (!user) throw new ApiError(401, "Invalid login session");
  if (existing) await s.store.oauth.refresh(existing.id, sealed(s, result));
  if (user.totpSecret !== null) return { kind: "totp", ticket: issueTotpTicket(s, user) };
  const { secret } = await startSession(s, user, client, "oauth");
  return { kind: "session", user, secret };
}

/** A new user for an account no one has linked, when OAuth registration is open. */
async function register(s: Services, preset: Preset, result: FlowResult): Promise<UserRecord> {
  const { profile } = result;
  if (s.settings.get("oauthLoginOnly")) {
    s.logger.info("oauth registration closed", { provider: preset.slug });
    throw forbidden(`No account here is linked to this ${preset.name} account`);
  }
  if (!profile.verified) {
    s.logger.info("oauth registration refused: email not verified", { provider: preset.slug });
    throw forbidden(`${preset.name} has not verified this account's email address`);
  }
  const user = await buildUser(s, {
    username: profile.username,
    password: null,
    role: "USER",
    avatar: await defaultAvatar(s),
  });
  try {
    await s.store.transaction(async (tx) => {
      await tx.users.create(user);
      await tx.oauth.create(newLink(s, preset.provider, user.id, result));
    });
  } catch (error) {
    if (error instanceof UniqueError && error.field === "username") {
      throw badRequest("The username is already taken by another account");
    }
    if (error instanceof UniqueError) throw badRequest("This account is already linked");
    throw error;
  }
  s.logger.info("oauth user registered", { provider: preset.slug, user: user.id });
  return user;
}

/** Links the account to user `userId`, unless it is someone else's or the user has this provider. */
async function link(
  s: Services,
  preset: Preset,
  result: FlowResult,
  user: UserRecord,
): Promise<OauthOutcome> {
  const userId = user.id;
  const existing = await s.store.oauth.find(preset.provider, result.profile.oauthId);
  if (existing && existing.userId !== userId) {
    s.logger.warn("oauth link refused: linked to another user", { provider: preset.slug });
    throw badRequest(`This ${preset.name} account is linked to another user`);
  }
  if (existing) {
    await s.store.oauth.refresh(existing.id, sealed(s, result));
    return { kind: "linked", user };
  }
  const links = await s.store.oauth.listByUser(userId);
  if (links.some((l) => l.provider === preset.provider)) {
    throw badRequest("Already linked to this OAuth provider");
  }
  try {
    await s.store.oauth.create(newLink(s, preset.provider, userId, result));
  } catch (error) {
    if (error instanceof UniqueError) {
      throw badRequest(`This ${preset.name} account is linked to another user`);
    }
    throw error;
  }
  return { kind: "linked", user };
}

function newLink(
  s: Services,
  provider: OauthProvider,
  userId: string,
  result: FlowResult,
): OauthLinkRecord {
  return {
    id: newId(s.random, s.clock.now()),
    userId,
    provider,
    oauthId: result.profile.oauthId,
    createdAt: new Date(s.clock.now()),
    ...sealed(s, result),
  };
}

/** A link as its owner's list shows it: the provider and the account's name, never the tokens. */
export function linkView(l: OauthLinkRecord) {
  return { id: l.id, provider: l.provider, username: l.username, createdAt: l.createdAt };
}

/** The user's linked accounts. */
export async function listLinks(s: Services, user: UserRecord) {
  return (await s.store.oauth.listByUser(user.id)).map(linkView);
}

/**
 * Unlinks the user's `provider` account, with proof of the owner
 * (`confirm.ts`); refused when it is the user's last way to sign in (no
 * password, no passkey, no other link). The store counts the other links and
 * removes in one step, so two unlinks at once cannot both pass the check.
 */
export async function unlink(
  s: Services,
  caller: { user: UserRecord; session: SessionRecord | null },
  input: { provider: OauthProvider; currentPassword?: string },
) {
  const { user, session } = caller;
  const { provider, currentPassword } = input;
  await confirmOwner(user, { currentPassword, session }, s.clock.now());
  const passkeys = (await s.store.mfa.listPasskeys(user.id)).length;
  const keepAtLeast = user.password === null && passkeys === 0 ? 1 : 0;
  const outcome = await s.store.oauth.removeUnlessLast(user.id, provider, keepAtLeast);
  if (outcome === "missing") throw badRequest("No providers to delete");
  if (outcome === "last") {
    throw badRequest("You can't delete your last OAuth provider without a password");
  }
  return await listLinks(s, user);
}

/** Removes every provider account linked to user `userId` (an administrator's reset). */
export async function removeAllLinks(s: Services, userId: string): Promise<void> {
  for (const l of await s.store.oauth.listByUser(userId)) {
    await s.store.oauth.removeUnlessLast(userId, l.provider, 0);
  }
}
