/// <reference lib="dom" />
/**
 * The dashboard's calls about signing in: the password, two-factor codes
 * (`/api/user/mfa/totp`), passkeys (`/api/user/mfa/passkey`), linked OAuth
 * accounts (`/api/auth/oauth`) and sessions (`/api/user/sessions`), typed
 * from the server's own zod schemas (type-only imports: nothing of the
 * server is bundled). Every credential change takes the current password
 * (`Proof`) when the account has one.
 */
import type { z } from "zod";
import type {
  PasskeyCreateBody,
  PasskeyDeleteBody,
  PasskeySchema,
  TotpCreateBody,
  TotpDeleteBody,
  TotpSetupSchema,
} from "../../routes/mfa.ts";
import type { LinkSchema, OauthUnlinkBody } from "../../routes/oauth.ts";
import type { SelfPatchBody, SessionsDeleteBody, SessionsReply } from "../../routes/user.ts";
import { api } from "../api.ts";

/** A TOTP secret to enrol and its QR code. */
export type TotpSetup = z.infer<typeof TotpSetupSchema>;
/** A passkey. */
export type Passkey = z.infer<typeof PasskeySchema>;
/** A linked OAuth account. */
export type OauthLink = z.infer<typeof LinkSchema>;
/** An OAuth provider. */
export type OauthProvider = OauthLink["provider"];
/** This session and the others. */
export type Sessions = z.infer<typeof SessionsReply>;
/** The proof a credential change carries: the current password, when one was typed. */
export interface Proof {
  currentPassword?: string;
}

/** What the security page needs to know of the server: which second factors are on. */
export interface MfaAvailability {
  totp: boolean;
  passkeys: boolean;
}

/** Which second factors the server offers (`GET /api/server/settings/web`). */
export async function mfaAvailability(): Promise<MfaAvailability> {
  const { config } = await api<{ config: { mfa?: { totp?: { enabled?: boolean } } } }>(
    "GET",
    "/api/server/settings/web",
  );
  const mfa = config.mfa as { totp?: { enabled?: boolean }; passkeys?: boolean } | undefined;
  return { totp: mfa?.totp?.enabled === true, passkeys: mfa?.passkeys === true };
}

/** Changes the password; the other sessions end and the token is replaced. */
export function changePassword(password: string, proof: Proof): Promise<unknown> {
  const body: z.input<typeof SelfPatchBody> = { password, ...proof };
  return api("PATCH", "/api/user", body);
}

/** A new TOTP secret to enrol (the current one once enabled). */
export function totpSetup(): Promise<TotpSetup> {
  return api<TotpSetup>("GET", "/api/user/mfa/totp");
}

/** Turns TOTP on with `secret`, confirmed by a `code` from the app. */
export function enableTotp(secret: string, code: string, proof: Proof): Promise<unknown> {
  const body: z.input<typeof TotpCreateBody> = { secret, code, ...proof };
  return api("POST", "/api/user/mfa/totp", body);
}

/** Turns TOTP off, confirmed by a current `code`. */
export function disableTotp(code: string, proof: Proof): Promise<unknown> {
  const body: z.input<typeof TotpDeleteBody> = { code, ...proof };
  return api("DELETE", "/api/user/mfa/totp", body);
}

/** The user's passkeys. */
export function listPasskeys(): Promise<Passkey[]> {
  return api<Passkey[]>("GET", "/api/user/mfa/passkey");
}

/**
 * Registers a passkey named `name`: the server's options, the browser's
 * prompt, then the credential sent back (WebAuthn's JSON forms, which the
 * browser reads and writes itself).
 */
export async function addPasskey(name: string, proof: Proof): Promise<Passkey> {
  const options = await api<PublicKeyCredentialCreationOptionsJSON>(
    "GET",
    "/api/user/mfa/passkey/options",
  );
  const credential = await navigator.credentials.create({
    publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options),
  }) as PublicKeyCredential | null;
  if (!credential) throw new Error("The passkey prompt was cancelled.");
  const body: z.input<typeof PasskeyCreateBody> = {
    // A credential made by `create` is a registration response (the DOM types allow both kinds).
    response: credential.toJSON() as unknown as z.input<typeof PasskeyCreateBody>["response"],
    name,
    ...proof,
  };
  return api<Passkey>("POST", "/api/user/mfa/passkey", body);
}

/** Removes the passkey `id`. */
export function removePasskey(id: string, proof: Proof): Promise<unknown> {
  const body: z.input<typeof PasskeyDeleteBody> = { id, ...proof };
  return api("DELETE", "/api/user/mfa/passkey", body);
}

/** The linked OAuth accounts. */
export function listOauthLinks(): Promise<OauthLink[]> {
  return api<OauthLink[]>("GET", "/api/auth/oauth");
}

/** Which OAuth providers the server has on (`GET /api/server/public`). */
export async function oauthProviders(): Promise<Record<string, boolean>> {
  return (await api<{ oauthEnabled: Record<string, boolean> }>("GET", "/api/server/public"))
    .oauthEnabled;
}

/** Unlinks the `provider` account; the links left. */
export function unlinkOauth(provider: OauthProvider, proof: Proof): Promise<OauthLink[]> {
  const body: z.input<typeof OauthUnlinkBody> = { provider, ...proof };
  return api<OauthLink[]>("DELETE", "/api/auth/oauth", body);
}

/** Starts linking a `provider` account: the provider's address to go to. */
export async function linkOauth(provider: OauthProvider, proof: Proof): Promise<string> {
  const path = `/api/auth/oauth/${provider.toLowerCase()}/link`;
  return (await api<{ url: string }>("POST", path, proof)).url;
}

/** This session and the others. */
export function listSessions(): Promise<Sessions> {
  return api<Sessions>("GET", "/api/user/sessions");
}

/** Signs out one other session, or all of them. */
export function revokeSessions(which: z.input<typeof SessionsDeleteBody>): Promise<Sessions> {
  return api<Sessions>("DELETE", "/api/user/sessions", which);
}
