/**
 * Multi-factor authentication (spec §4.3, §4.4): TOTP setup for the current
 * user, passkey registration, and the passwordless passkey sign-in
 * (`/api/auth/webauthn`).
 */
import { z } from "@hono/zod-openapi";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { clearServiceCookie, setServiceCookie } from "./cookies.ts";
import {
  authenticationOptions,
  CHALLENGE_TTL_MS,
  listPasskeys,
  passkeyLogin,
  passkeyView,
  registerPasskey,
  registrationOptions,
  removePasskey,
} from "../core/passkeys.ts";
import { disableTotp, enableTotp, totpSetup } from "../core/totp.ts";
import { selfView } from "../core/users.ts";
import { clientInfo } from "./client_info.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { type AppEnv, currentUser as me, servedHost, viaHttps } from "./env.ts";
import { CurrentPassword, SelfUserSchema, Timestamp } from "./schemas.ts";
import { setSessionCookie } from "./session_cookie.ts";

/** The cookie naming the challenge of a passkey sign-in in progress (as Zipline names it). */
const CHALLENGE_COOKIE = "webauthn-challenge-id";
const CHALLENGE_COOKIE_PATH = "/api/auth/webauthn";

/** No example: a code verifies only against a live secret, so no fixed one can be shown. */
const TotpCode = z.string().regex(/^\d{6}$/, "must be 6 digits");

/** A TOTP secret to enrol, with its QR code. */
export const TotpSetupSchema = z.object({
  secret: z.string().openapi({ description: "Base32; type it into an authenticator app." }),
  qrcode: z.string().openapi({ description: "PNG data URI of the `otpauth://` URI." }),
}).openapi("TotpSetup");

/** A passkey as its owner's list shows it. */
export const PasskeySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: Timestamp,
  lastUsed: Timestamp.nullable(),
}).openapi("Passkey");

const Base64Url = z.string().regex(/^[A-Za-z0-9_-]*$/, "must be base64url").max(65_536);

/** A WebAuthn credential as `PublicKeyCredential.toJSON()` gives it; extra fields are kept. */
const credentialJson = <T extends z.ZodRawShape>(response: T) =>
  z.looseObject({
    id: Base64Url.min(1),
    rawId: Base64Url.min(1),
    type: z.literal("public-key"),
    response: z.looseObject(response),
    clientExtensionResults: z.looseObject({}).default({}),
    authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  });

const RegistrationResponse = credentialJson({
  clientDataJSON: Base64Url,
  attestationObject: Base64Url,
  transports: z.array(z.string().max(50)).max(10).optional(),
}).openapi("RegistrationResponseJSON");

const AuthenticationResponse = credentialJson({
  clientDataJSON: Base64Url,
  authenticatorData: Base64Url,
  signature: Base64Url,
  userHandle: Base64Url.optional(),
}).openapi("AuthenticationResponseJSON");

/** WebAuthn options are the library's JSON, passed to the browser as they are. */
const WebAuthnOptions = z.looseObject({ challenge: z.string() });

const TOTP_ERRORS = "`TOTP is disabled`, `Invalid code`, `currentPassword is required`, or a " +
  "validation failure";
const WRONG_PASSWORD = errorDoc("`Invalid current password`");
/** The 429 of a route that checks a TOTP code: the route's limit, or the account's. */
const TOO_MANY_CODES = errorDoc(
  "`Rate limit exceeded, retry in N seconds`, or `Too many codes were tried for this account; " +
    "try again in N seconds` (5 codes checked per account in 5 minutes), with `Retry-After`.",
);
const PASSKEY_404 = errorDoc("`Not Found`: passkeys are off");

const getTotp = defineRoute({
  method: "get",
  path: "/user/mfa/totp",
  auth: "user",
  tags: ["MFA"],
  summary: "The TOTP secret and its QR code: a new one until TOTP is enabled, then the current one",
  responses: {
    200: json(TotpSetupSchema, "The secret and the QR code"),
    400: errorDoc("`TOTP is disabled`"),
  },
});

/** Turning TOTP on: the secret, a code and the proof of who asks. */
export const TotpCreateBody = z.object({
  code: TotpCode,
  secret: z.string().min(1).max(200),
  currentPassword: CurrentPassword,
});

const postTotp = defineRoute({
  method: "post",
  path: "/user/mfa/totp",
  auth: "user",
  tags: ["MFA"],
  summary: "Enable TOTP with a secret, confirmed by a current code and the password",
  request: {
    body: jsonBody(TotpCreateBody),
  },
  responses: {
    200: json(SelfUserSchema, "The user, with `totp: true`"),
    400: errorDoc(`${TOTP_ERRORS}, or \`TOTP is already enabled\``),
    403: WRONG_PASSWORD,
    429: TOO_MANY_CODES,
  },
});

/** Turning TOTP off: a code and the proof of who asks. */
export const TotpDeleteBody = z.object({
  code: TotpCode,
  currentPassword: CurrentPassword.openapi({
    description: "Optional: when sent, it must be the caller's password (403 otherwise).",
  }),
});

const deleteTotp = defineRoute({
  method: "delete",
  path: "/user/mfa/totp",
  auth: "user",
  tags: ["MFA"],
  summary: "Disable TOTP, confirmed by a current code",
  description: "A valid code is proof of the owner on its own, with a token or a session; " +
    "`currentPassword` is not needed, but when sent it must be right.",
  request: {
    body: jsonBody(TotpDeleteBody),
  },
  responses: {
    200: json(SelfUserSchema, "The user, with `totp: false`"),
    400: errorDoc(
      "`TOTP is disabled`, `Invalid code`, `You don't have TOTP enabled`, or a validation failure",
    ),
    403: WRONG_PASSWORD,
    429: TOO_MANY_CODES,
  },
});

const getPasskeys = defineRoute({
  method: "get",
  path: "/user/mfa/passkey",
  auth: "user",
  tags: ["MFA"],
  summary: "The user's passkeys",
  responses: { 200: json(z.array(PasskeySchema), "Passkeys, oldest first"), 404: PASSKEY_404 },
});

const getRegistrationOptions = defineRoute({
  method: "get",
  path: "/user/mfa/passkey/options",
  auth: "user",
  tags: ["MFA"],
  summary: "Options for `navigator.credentials.create()`; valid for 2 minutes",
  responses: {
    200: json(WebAuthnOptions, "PublicKeyCredentialCreationOptionsJSON"),
    400: errorDoc("The RP ID is neither the service's domain nor a parent of it"),
    404: PASSKEY_404,
  },
});

/** A new passkey: its name, the authenticator's answer and the proof of who asks. */
export const PasskeyCreateBody = z.object({
  response: RegistrationResponse,
  name: z.string().trim().min(1).max(100),
  currentPassword: CurrentPassword,
});

const postPasskey = defineRoute({
  method: "post",
  path: "/user/mfa/passkey",
  auth: "user",
  tags: ["MFA"],
  summary:
    "Register a passkey from the browser's response to the latest options (needs the password or a fresh sign-in)",
  request: {
    body: jsonBody(PasskeyCreateBody),
  },
  responses: {
    200: json(PasskeySchema, "The registered passkey"),
    400: errorDoc(
      "No options in the last 2 minutes, the response does not verify, or " +
        "`currentPassword is required`",
    ),
    403: WRONG_PASSWORD,
    404: PASSKEY_404,
  },
});

/** Removing a passkey, with the proof of who asks. */
export const PasskeyDeleteBody = z.object({
  id: z.string().min(1).max(100),
  currentPassword: CurrentPassword,
});

const deletePasskey = defineRoute({
  method: "delete",
  path: "/user/mfa/passkey",
  auth: "user",
  tags: ["MFA"],
  summary: "Remove a passkey (needs the current password or a fresh sign-in)",
  request: {
    body: jsonBody(PasskeyDeleteBody),
  },
  responses: {
    200: json(SelfUserSchema, "The user"),
    400: errorDoc("`currentPassword is required`, or a validation failure"),
    403: WRONG_PASSWORD,
    404: errorDoc("`Passkey not found`, or passkeys are off"),
  },
});

const getLoginOptions = defineRoute({
  method: "get",
  path: "/auth/webauthn/options",
  auth: "none",
  tags: ["Auth"],
  summary: "Options for a passwordless sign-in with `navigator.credentials.get()`",
  description: `Sets the HttpOnly cookie \`${CHALLENGE_COOKIE}\` (2 minutes) that ` +
    "`POST /api/auth/webauthn` needs.",
  responses: {
    200: json(
      z.object({ id: z.string(), options: WebAuthnOptions }),
      "The challenge id and PublicKeyCredentialRequestOptionsJSON",
    ),
    400: errorDoc("The RP ID is neither the service's domain nor a parent of it"),
    404: PASSKEY_404,
  },
});

const postLogin = defineRoute({
  method: "post",
  path: "/auth/webauthn",
  auth: "none",
  tags: ["Auth"],
  summary: "Sign in with a passkey",
  description: "Sets the `service_session` cookie, as a password login does.",
  request: { body: jsonBody(z.object({ response: AuthenticationResponse })) },
  responses: {
    200: json(z.object({ user: SelfUserSchema }), "Signed in"),
    400: errorDoc("No or an expired challenge cookie, an unknown passkey, or a bad signature"),
    404: PASSKEY_404,
  },
});

/** The origin the request was sent to, from which an unset passkey RP ID and origin derive. */
/** The origin the browser used: a trusted proxy's forwarded host and scheme, else the request's own. */
const requestOrigin = (c: Context<AppEnv>) =>
  `${viaHttps(c) ? "https" : "http"}://${servedHost(c)}`;

/** The TOTP, passkey and passkey sign-in routes. */
export const mfaRoutes = newRouter()
  .openapi(getTotp, async (c) => c.json(await totpSetup(c.var.services, me(c)), 200))
  .openapi(postTotp, async (c) => {
    return c.json(
      selfView(await enableTotp(c.var.services, me(c), c.req.valid("json"), c.var.session)),
      200,
    );
  })
  .openapi(deleteTotp, async (c) => {
    const user = await disableTotp(c.var.services, me(c), c.req.valid("json"));
    return c.json(selfView(user), 200);
  })
  .openapi(getPasskeys, async (c) => {
    return c.json((await listPasskeys(c.var.services, me(c))).map(passkeyView), 200);
  })
  .openapi(getRegistrationOptions, async (c) => {
    return c.json(await registrationOptions(c.var.services, me(c), requestOrigin(c)), 200);
  })
  .openapi(postPasskey, async (c) => {
    const body = c.req.valid("json");
    // The schema checked the shape the library reads; the library checks the rest.
    const input = { ...body, response: body.response as unknown as RegistrationResponseJSON };
    return c.json(
      passkeyView(
        await registerPasskey(c.var.services, me(c), input, c.var.session, requestOrigin(c)),
      ),
      200,
    );
  })
  .openapi(deletePasskey, async (c) => {
    await removePasskey(c.var.services, me(c), c.req.valid("json"), c.var.session);
    return c.json(selfView(me(c)), 200);
  })
  .openapi(getLoginOptions, async (c) => {
    const result = await authenticationOptions(c.var.services, requestOrigin(c));
    setServiceCookie(c, CHALLENGE_COOKIE, result.id, {
      path: CHALLENGE_COOKIE_PATH,
      maxAge: CHALLENGE_TTL_MS / 1000,
      httpOnly: true,
    });
    return c.json(result, 200);
  })
  .openapi(postLogin, async (c) => {
    const challengeId = getCookie(c, CHALLENGE_COOKIE);
    clearServiceCookie(c, CHALLENGE_COOKIE, CHALLENGE_COOKIE_PATH);
    const response = c.req.valid("json").response as unknown as AuthenticationResponseJSON;
    const result = await passkeyLogin(
      c.var.services,
      challengeId,
      response,
      clientInfo(c),
      requestOrigin(c),
    );
    setSessionCookie(c, result.secret);
    return c.json({ user: selfView(result.user) }, 200);
  });
