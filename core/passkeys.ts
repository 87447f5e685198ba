/**
 * Passkeys (spec §4.4, WebAuthn through @simplewebauthn/server): registering
 * them, and signing in with one instead of a password. Every ceremony's
 * challenge is kept in the store with a two-minute expiry and taken (deleted)
 * by the response that answers it, so it answers once, on any server process.
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { PasskeyRecord } from "../db/mfa.ts";
import type { SessionRecord } from "../db/sessions.ts";
import type { UserRecord } from "../db/users.ts";
import { UniqueError } from "../db/errors.ts";
import { newId } from "./clock.ts";
import { confirmOwner } from "./confirm.ts";
import { badRequest, notFound } from "./errors.ts";
import { base64url } from "./secrets.ts";
import type { Services } from "./services.ts";
import { type ClientInfo, startSession } from "./sessions.ts";

/**
 * The WebAuthn library, loaded by the first ceremony: with its certificate
 * stack it is some 20 MiB of memory that most processes never need.
 */
const webauthn = () => import("@simplewebauthn/server");

/** How long a ceremony may take from its options to its response. */
export const CHALLENGE_TTL_MS = 2 * 60 * 1000;

/** The relying party of one ceremony: its RP ID and the origins a response may come from. */
export interface RelyingParty {
  rpID: string;
  origin: string | string[];
}

/** What the settings say of the relying party: each `null` when it is derived. */
export interface RelyingPartySettings {
  rpID: string | null;
  origin: string | null;
}

/**
 * The settings' relying party while passkeys are on (`mfaPasskeysRpID` and
 * `mfaPasskeysOrigin`, `null` where unset and so derived), or `null` when
 * passkeys are off.
 */
export function relyingPartyOf(s: Services): RelyingPartySettings | null {
  if (!s.settings.get("mfaPasskeysEnabled")) return null;
  return { rpID: s.settings.get("mfaPasskeysRpID"), origin: s.settings.get("mfaPasskeysOrigin") };
}

/** The settings' relying party; 404 `Not Found` when passkeys are off. */
function relyingParty(s: Services): RelyingPartySettings {
  const rp = relyingPartyOf(s);
  if (!rp) throw notFound();
  return rp;
}

/**
 * `true` when `rpID` may serve `host`: it is the host itself or a parent
 * domain of it (`example.com` for `files.example.com`). A bare top-level
 * label (`com`) is never a parent, and an IP address has none.
 */
export function rpIdAllowed(rpID: string, host: string): boolean {
  const rp = rpID.toLowerCase().replace(/\.$/, "");
  const name = host.toLowerCase().replace(/\.$/, "");
  if (rp === name) return true;
  const isIp = /^[\d.]+$/.test(name) || name.includes(":");
  return !isIp && rp.includes(".") && name.endsWith(`.${rp}`);
}

/**
 * The relying party for a ceremony of a request to `requestOrigin` (its own
 * `scheme://host[:port]`). The service's host is `coreDefaultDomain` when
 * set, else the request's host. The RP ID is `mfaPasskeysRpID`, which must be
 * the service's host name or a parent of it (400 otherwise), or, unset, that
 * host name. The origin is `mfaPasskeysOrigin`, or, unset, the service's host
 * (and port) under https or http: behind a proxy that ends TLS the request's
 * own scheme is not the browser's, and browsers run WebAuthn over http only
 * on localhost, while the RP ID signed by the authenticator binds the host.
 * Zipline's client turns passkeys on without either, as Zipline derives them.
 */
function relyingPartyFor(s: Services, requestOrigin: string): RelyingParty {
  const rp = relyingParty(s);
  const host = s.settings.get("coreDefaultDomain") ?? new URL(requestOrigin).host;
  const domain = new URL(`http://${host}`).hostname;
  const rpID = rp.rpID ?? domain;
  if (!rpIdAllowed(rpID, domain)) {
    throw badRequest(
      `The passkey RP ID ${rpID} is neither this service's domain (${domain}) nor a parent of it`,
    );
  }
  const origin = rp.origin ??
    ["https", "http"].map((scheme) => new URL(`${scheme}://${host}`).origin);
  return { rpID, origin };
}

const registrationChallengeId = (userId: string) => `registration:${userId}`;

function expiry(s: Services): Date {
  return new Date(s.clock.now() + CHALLENGE_TTL_MS);
}

/** What the API shows of a passkey (spec §2.6); the key and the counter stay here. */
export function passkeyView(p: PasskeyRecord) {
  return {
    id: p.id,
    name: p.name,
    createdAt: p.createdAt.toISOString(),
    lastUsed: p.lastUsed?.toISOString() ?? null,
  };
}

/** The user's passkeys, oldest first. */
export async function listPasskeys(s: Services, user: UserRecord): Promise<PasskeyRecord[]> {
  relyingParty(s);
  return await s.store.mfa.listPasskeys(user.id);
}

/**
 * Registration options for `user`: user verification and a resident key
 * preferred, the user's passkeys excluded. The challenge waits in the store
 * (one per user; new options replace it).
 */
export async function registrationOptions(
  s: Services,
  user: UserRecord,
  requestOrigin: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { rpID } = relyingPartyFor(s, requestOrigin);
  const existing = await s.store.mfa.listPasskeys(user.id);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: s.settings.get("websiteTitle"),
    rpID,
    userName: user.username,
    userID: new TextEncoder().encode(user.id),
    challenge: s.random.bytes(32).slice(),
    authenticatorSelection: { userVerification: "preferred", residentKey: "preferred" },
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
  });
  await s.store.mfa.putChallenge({
    id: registrationChallengeId(user.id),
    kind: "registration",
    challenge: options.challenge,
    userId: user.id,
    rpId: rpID,
    expiresAt: expiry(s),
  }, new Date(s.clock.now()));
  return options;
}

/** The library's reason a response failed, for the 400 a person reads. */
const reason = (error: unknown) => error instanceof Error ? `: ${error.message}` : "";

/**
 * Verifies a registration response, sent to `requestOrigin`, against the
 * challenge of the user's options, their RP ID and the relying party's
 * origin, and stores the passkey as `name`. Needs proof of the owner
 * (`confirm.ts`).
 */
export async function registerPasskey(
  s: Services,
  user: UserRecord,
  input: { response: RegistrationResponseJSON; name: string; currentPassword?: string },
  session: SessionRecord | null,
  requestOrigin: string,
): Promise<PasskeyRecord> {
  const { origin } = relyingPartyFor(s, requestOrigin);
  await confirmOwner(user, { currentPassword: input.currentPassword, session }, s.clock.now());
  const now = new Date(s.clock.now());
  const challenge = await s.store.mfa.takeChallenge(registrationChallengeId(user.id), now);
  if (!challenge) throw badRequest("Passkey registration timed out, try again later");
  let result;
  try {
    result = await (await webauthn()).verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origin,
      expectedRPID: challenge.rpId,
    });
  } catch (error) {
    throw badRequest(`Error verifying passkey registration${reason(error)}`);
  }
  if (!result.verified) throw badRequest("Could not verify passkey registration");
  const { credential } = result.registrationInfo;
  const passkey: PasskeyRecord = {
    id: newId(s.random, s.clock.now()),
    userId: user.id,
    name: input.name,
    credentialId: credential.id,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: credential.transports ?? [],
    createdAt: now,
    lastUsed: null,
  };
  try {
    await s.store.mfa.createPasskey(passkey);
  } catch (error) {
    if (error instanceof UniqueError) throw badRequest("This passkey is already registered");
    throw error;
  }
  return passkey;
}

/**
 * Removes one of the user's passkeys; 404 when the user has none with that
 * id. Needs proof of the owner (`confirm.ts`).
 */
export async function removePasskey(
  s: Services,
  user: UserRecord,
  input: { id: string; currentPassword?: string },
  session: SessionRecord | null,
): Promise<void> {
  relyingParty(s);
  await confirmOwner(user, { currentPassword: input.currentPassword, session }, s.clock.now());
  const id = input.id;
  if (!await s.store.mfa.deletePasskey(user.id, id)) throw notFound("Passkey not found");
}

/** Options for a passwordless sign-in, and the id of their challenge (for the cookie). */
export async function authenticationOptions(
  s: Services,
  requestOrigin: string,
): Promise<{ id: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const { rpID } = relyingPartyFor(s, requestOrigin);
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID,
    userVerification: "preferred",
    challenge: s.random.bytes(32).slice(),
  });
  const id = base64url(s.random.bytes(32));
  await s.store.mfa.putChallenge({
    id,
    kind: "authentication",
    challenge: options.challenge,
    userId: null,
    rpId: rpID,
    expiresAt: expiry(s),
  }, new Date(s.clock.now()));
  return { id, options };
}

/**
 * Signs in with a passkey, by a request to `requestOrigin`: takes the
 * challenge `challengeId`, finds the passkey by credential id, verifies the
 * signature, origin, RP ID and counter, records the use, and starts a session.
 */
export async function passkeyLogin(
  s: Services,
  challengeId: string | undefined,
  response: AuthenticationResponseJSON,
  client: ClientInfo,
  requestOrigin: string,
): Promise<{ user: UserRecord; secret: string }> {
  const { origin } = relyingPartyFor(s, requestOrigin);
  if (!challengeId) throw badRequest("Missing WebAuthn challenge ID");
  const now = new Date(s.clock.now());
  const challenge = await s.store.mfa.takeChallenge(challengeId, now);
  if (challenge?.kind !== "authentication") {
    throw badRequest("Passkey sign-in timed out, try again");
  }
  const passkey = await s.store.mfa.getPasskeyByCredential(response.id);
  const user = passkey && await s.store.users.get(passkey.userId);
  const handle = response.response.userHandle;
  if (!passkey || !user || (handle && handle !== base64url(new TextEncoder().encode(user.id)))) {
    throw badRequest("Could not verify passkey authentication");
  }
  let result;
  try {
    result = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origin,
      expectedRPID: challenge.rpId,
      credential: {
        id: passkey.credentialId,
        publicKey: passkey.publicKey.slice(),
        counter: passkey.counter,
        transports: passkey.transports,
      },
    });
  } catch (error) {
    throw badRequest(`Error verifying passkey authentication${reason(error)}`);
  }
  if (!result.verified) throw badRequest("Could not verify passkey authentication");
  await s.store.mfa.recordPasskeyUse(passkey.id, result.authenticationInfo.newCounter, now);
  const { secret } = await startSession(s, user, client, "passkey");
  return { user, secret };
}
