/**
 * The OAuth 2 Authorization Code flow with PKCE (S256), one for every preset
 * (`providers.ts`), through oauth4webapi. Starting it seals what the callback
 * needs (`state`, the PKCE verifier, the OIDC `nonce`, the mode) with the
 * server secret into a short-lived cookie, so the callback is bound to the
 * browser that started it. Finishing it checks the `state`, exchanges the code,
 * and for OpenID Connect verifies the ID token (signature against the
 * provider's keys, issuer, audience, expiry, nonce); for plain OAuth 2 it
 * reads the user endpoint.
 */
import * as oauth from "oauth4webapi";
import { ApiError, badRequest, forbidden } from "../errors.ts";
import { base64url } from "../secrets.ts";
import { oauthEnabled } from "../server_info.ts";
import { FreshCache } from "../../db/fresh_cache.ts";
import { systemClock } from "../clock.ts";
import { perServices, type Services } from "../services.ts";
import type { OauthProfile, Preset } from "./providers.ts";
import { seal, unseal } from "./sealed.ts";

/** The cookie holding the sealed flow between start and callback. */
export const OAUTH_COOKIE = "service_oauth";
/** Where the browser sends that cookie. */
export const OAUTH_COOKIE_PATH = "/api/auth/oauth";
/** How long a started flow may take: 10 minutes. */
export const OAUTH_FLOW_TTL_MS = 10 * 60 * 1000;

/**
 * What a flow is for: signing in, or linking the account to the signed-in
 * user of the session `sessionId` (the callback links only for that session).
 */
export type FlowMode = { kind: "login" } | { kind: "link"; userId: string; sessionId: string };

/** What the cookie carries between start and callback. */
interface Pending {
  provider: string;
  state: string;
  verifier: string;
  nonce: string;
  mode: FlowMode;
  expiresAt: number;
}

/** The outcome of a finished flow. */
export interface FlowResult {
  mode: FlowMode;
  profile: OauthProfile;
  accessToken: string;
  refreshToken: string | null;
}

const TIMEOUT_MS = 10_000;

/** Where the provider sends the browser back: the configured URI, else this host's route. */
export function redirectUriOf(s: Services, preset: Preset, host: string): string {
  const scheme = s.settings.get("coreReturnHttpsUrls") ? "https" : "http";
  return preset.redirectUri(s.settings.all()) ??
    `${scheme}://${host}${OAUTH_COOKIE_PATH}/${preset.slug}`;
}

/** The provider could not be reached or answered nonsense: 503, with a log line. */
function providerDown(s: Services, preset: Preset, cause: unknown): ApiError {
  s.logger.warn("oauth provider failed", { provider: preset.slug, cause: String(cause) });
  return new ApiError(503, `${preset.name} could not be reached, try again later`);
}

/** Plain http is allowed for a provider on this machine only (a local test or sidecar IdP). */
function options(url: string) {
  const host = new URL(url).hostname;
  const loopback = host === "localhost" || host === "[::1]" || /^127\./.test(host);
  return { [oauth.allowInsecureRequests]: loopback, signal: AbortSignal.timeout(TIMEOUT_MS) };
}

/**
 * The issuers whose discovery document may describe the provider: `url`
 * itself (exactly: an issuer may end with `/`) when no authorization endpoint
 * is to be matched, otherwise each path prefix of that endpoint, longest first.
 */
export function issuerCandidates(url: string, authorization?: string): string[] {
  if (authorization === undefined) return [url];
  const u = new URL(authorization);
  const parts = u.pathname.split("/").filter(Boolean);
  return parts.map((_, i) => `${u.origin}/${parts.slice(0, parts.length - 1 - i).join("/")}`)
    .map((c) => c.replace(/\/$/, ""));
}

/** The provider's metadata: discovered (OpenID Connect) or fixed by the preset. */
async function metadata(s: Services, preset: Preset): Promise<oauth.AuthorizationServer> {
  const ends = preset.endpoints(s.settings.all());
  if (!("discover" in ends)) {
    return {
      issuer: ends.issuer,
      authorization_endpoint: ends.authorization,
      token_endpoint: ends.token,
      userinfo_endpoint: ends.userinfo,
    };
  }
  const key = `${ends.discover} ${ends.authorization ?? ""}`;
  return await discovered(s).get(key, s.clock.now(), async () => {
    let failure: unknown = "no discovery document";
    for (const issuer of issuerCandidates(ends.discover, ends.authorization)) {
      try {
        const url = new URL(issuer);
        const response = await oauth.discoveryRequest(url, {
          algorithm: "oidc",
          ...options(issuer),
        });
        const as = await oauth.processDiscoveryResponse(url, response);
        if (!ends.authorization || as.authorization_endpoint === ends.authorization) return as;
      } catch (error) {
        failure = error;
      }
    }
    throw providerDown(s, preset, failure);
  });
}

/** How long a discovery document is reused: 10 minutes. */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
/**
 * Discovery documents by what was discovered (a failure is not kept): public
 * metadata, so each instance may keep its own copy (a flow started on one
 * instance finishes on another that discovers for itself).
 */
const discovered = perServices((_: Services) =>
  new FreshCache<oauth.AuthorizationServer>({
    ttlMs: DISCOVERY_TTL_MS,
    maxEntries: 64,
    maxBytes: 1024 * 1024,
  })
);

function clientOf(s: Services, preset: Preset): { client: oauth.Client; secret: string } {
  const settings = s.settings.all();
  if (!settings.featuresOauthRegistration) throw forbidden("OAuth registration is disabled");
  const { id, secret } = preset.client(settings);
  if (!oauthEnabled(settings)[preset.slug] || !id || !secret) {
    throw new ApiError(401, `${preset.name} OAuth is not configured.`);
  }
  // The flow's idea of "now" is the service clock's, so expiry follows it: oauth4webapi reads the
  // real clock, and is told how far the service clock is from it.
  const skew = Math.round((s.clock.now() - systemClock.now()) / 1000);
  return { client: { client_id: id, [oauth.clockSkew]: skew }, secret };
}

const random = (s: Services) => base64url(s.random.bytes(32));

/**
 * Starts a flow: the provider's authorization URL to send the browser to,
 * and the sealed cookie value that binds the callback to this browser.
 */
export async function startFlow(
  s: Services,
  preset: Preset,
  redirectUri: string,
  mode: FlowMode,
): Promise<{ url: string; cookie: string }> {
  const { client } = clientOf(s, preset);
  const as = await metadata(s, preset);
  const pending: Pending = {
    provider: preset.slug,
    state: random(s),
    verifier: random(s),
    nonce: random(s),
    mode,
    expiresAt: s.clock.now() + OAUTH_FLOW_TTL_MS,
  };
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    ...preset.params,
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: preset.scope,
    state: pending.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: "S256",
    ...(preset.openid ? { nonce: pending.nonce } : {}),
  }).toString();
  return { url: url.toString(), cookie: seal(s, "oauth-flow", pending) };
}

/** The flow the cookie holds, if it is this provider's and not expired. */
function pendingFlow(s: Services, preset: Preset, cookie: string | undefined): Pending | null {
  const pending = unseal<Pending>(s, "oauth-flow", cookie);
  return pending?.provider === preset.slug && pending.expiresAt > s.clock.now() ? pending : null;
}

/**
 * Finishes a flow at the callback `callback` (the URL the provider sent the
 * browser to) with the cookie `cookie`: the verified profile and the tokens.
 */
export async function finishFlow(
  s: Services,
  preset: Preset,
  redirectUri: string,
  callback: URL,
  cookie: string | undefined,
): Promise<FlowResult> {
  const { client, secret } = clientOf(s, preset);
  const pending = pendingFlow(s, preset, cookie);
  const state = callback.searchParams.get("state");
  if (!pending || state !== pending.state) {
    s.logger.warn("oauth state mismatch", { provider: preset.slug, cookie: pending !== null });
    throw badRequest("Invalid OAuth state parameter");
  }
  const as = await metadata(s, preset);
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, callback, pending.state);
  } catch (error) {
    s.logger.info("oauth authorization refused", { provider: preset.slug, cause: String(error) });
    throw forbidden(`Sign-in was not allowed at ${preset.name}`);
  }
  const auth = clientAuth(as, secret);
  let tokens: oauth.TokenEndpointResponse;
  let claims: Record<string, unknown>;
  try {
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      redirectUri,
      pending.verifier,
      options(as.token_endpoint!),
    );
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      ...(preset.openid ? { expectedNonce: pending.nonce, requireIdToken: true } : {}),
    });
    if (preset.openid) {
      await oauth.validateApplicationLevelSignature(as, response, options(as.jwks_uri!));
      const id = oauth.getValidatedIdTokenClaims(tokens)!;
      claims = { ...id, ...await userinfo(as, client, tokens.access_token, id.sub) };
    } else {
      claims = await userinfo(as, client, tokens.access_token, oauth.skipSubjectCheck);
    }
  } catch (error) {
    throw rejected(s, preset, error);
  }
  const profile = preset.profile(claims);
  if (!profile) throw providerDown(s, preset, "profile without an id or a name");
  return {
    mode: pending.mode,
    profile,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? null,
  };
}

/** `client_secret_post` unless the provider lists only other methods (then HTTP Basic). */
function clientAuth(as: oauth.AuthorizationServer, secret: string): oauth.ClientAuth {
  const methods = as.token_endpoint_auth_methods_supported;
  return !methods || methods.includes("client_secret_post")
    ? oauth.ClientSecretPost(secret)
    : oauth.ClientSecretBasic(secret);
}

/**
 * The user endpoint's answer; for OpenID Connect, checked to be about the ID
 * token's subject. Without a user endpoint (an OIDC provider that has none),
 * nothing beyond the ID token.
 */
async function userinfo(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  accessToken: string,
  subject: string | typeof oauth.skipSubjectCheck,
): Promise<Record<string, unknown>> {
  if (!as.userinfo_endpoint) return {};
  const response = await oauth.userInfoRequest(
    as,
    client,
    accessToken,
    options(as.userinfo_endpoint),
  );
  if (subject !== oauth.skipSubjectCheck) {
    return { ...await oauth.processUserInfoResponse(as, client, subject, response) };
  }
  if (!response.ok) throw new Error(`user endpoint answered ${response.status}`);
  return await response.json();
}

/** A failed exchange: the provider's answer did not verify (400) or it was down (503). */
function rejected(s: Services, preset: Preset, error: unknown): ApiError {
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.ResponseBodyError) {
    s.logger.warn("oauth answer rejected", { provider: preset.slug, cause: String(error) });
    return badRequest(`${preset.name} sign-in could not be verified, try again`);
  }
  return providerDown(s, preset, error);
}
