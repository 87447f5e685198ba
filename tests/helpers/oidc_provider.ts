/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback for the OAuth
 * tests, with one client registered for the test app and an account for
 * every login name (any password): its `sub` is `sub-<login>` and its
 * `preferred_username` the login name. `authorize` plays the person at the
 * provider: it follows the authorization URL, fills in the provider's login
 * and consent forms, and returns the URL the provider sends the browser back
 * to (with `code`, or `error` when the person cancels at the first form).
 * Given `idToken`, the provider's own address answers token requests by
 * relaying them to the provider on a second loopback port and rewriting the
 * ID token in the answer (a man in the middle with or without the provider's
 * signing key), so tests can prove the client checks what it is given.
 */
import Provider from "oidc-provider";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Buffer } from "node:buffer";

/** The client id and secret the test app is configured with. */
export const CLIENT = { id: "ferry", secret: "ferry-client-secret" };

/** A running provider. */
export interface TestProvider {
  issuer: string;
  /** The settings that point the test app's generic OIDC provider at this one. */
  settings: Record<string, unknown>;
  /** Signs in as `login` from `authorizationUrl`; returns the callback URL. */
  authorize(authorizationUrl: string, login: string, consent?: boolean): Promise<URL>;
  close(): Promise<void>;
}

/** What {@link startOidcProvider} may be given. */
export interface ProviderOptions {
  redirectUri: string;
  /** Claims of an account beyond `sub` and `preferred_username`. */
  claims?: (login: string) => Record<string, unknown>;
  /** How the token endpoint's ID token is rewritten on its way to the client. */
  idToken?: IdTokenRewrite;
}

/** A rewrite of the ID token the token endpoint answers with. */
export interface IdTokenRewrite {
  /** The claims to sign in place of the provider's. */
  claims?: (claims: Record<string, unknown>) => Record<string, unknown>;
  /** Signs with a key the provider never published (under the provider's key id). */
  foreignKey?: boolean;
}

const SIGNING = {
  name: "RSASSA-PKCS1-v1_5",
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: "SHA-256",
};
const KEY_ID = "test-key";

/** An RS256 key pair for signing ID tokens. */
async function signingKey(): Promise<CryptoKeyPair> {
  return await crypto.subtle.generateKey(SIGNING, true, ["sign", "verify"]) as CryptoKeyPair;
}

/** Starts a provider on 127.0.0.1 on a free port. */
export async function startOidcProvider(options: ProviderOptions): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = await signingKey();
  const { key_ops: _ops, ext: _ext, ...jwk } = await crypto.subtle.exportKey("jwk", key.privateKey);
  const warn = console.warn;
  console.warn = () => {}; // the provider's warnings about its development defaults
  const provider = new Provider(issuer, {
    clients: [{
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      redirect_uris: [options.redirectUri],
      token_endpoint_auth_method: "client_secret_post",
      grant_types: ["authorization_code", "refresh_token"],
    }],
    claims: {
      openid: ["sub"],
      profile: ["preferred_username", "name", "given_name"],
      email: ["email", "email_verified"],
    },
    // ID tokens expire a minute after they are made: the expiry test moves Ferry's clock past it.
    ttl: {
      IdToken: 60,
      AccessToken: 3600,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 3600,
      RefreshToken: 3600,
      Session: 3600,
    },
    jwks: { keys: [{ ...jwk, kid: KEY_ID, use: "sig" }] },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => {
        const login = sub.replace(/^sub-/, "");
        return { sub, preferred_username: login, ...options.claims?.(login) };
      },
    }),
    // deno-lint-ignore no-explicit-any
  } as any);
  console.warn = warn;
  const callback = provider.callback();
  const relay = options.idToken && await relayTo(callback, options.idToken, key.privateKey);
  server.on("request", (req, res) => {
    if (relay && req.method === "POST" && req.url === "/token") relay.answer(req, res);
    else callback(req, res);
  });
  return {
    issuer,
    settings: {
      featuresOauthRegistration: true,
      oauthOidcClientId: CLIENT.id,
      oauthOidcClientSecret: CLIENT.secret,
      oauthOidcAuthorizeUrl: `${issuer}/auth`,
      oauthOidcTokenUrl: `${issuer}/token`,
      oauthOidcUserinfoUrl: `${issuer}/me`,
    },
    authorize: (url, login, consent = true) => authorize(url, `sub-${login}`, consent),
    close: async () => {
      await relay?.close();
      await close(server);
    },
  };
}

const close = (server: http.Server) =>
  new Promise<void>((resolve) => server.close(() => resolve()));

/**
 * A second listener for the provider's `callback` and the relay in front of
 * its token endpoint: it passes the request on and rewrites the ID token.
 */
async function relayTo(
  callback: http.RequestListener,
  rewrite: IdTokenRewrite,
  providerKey: CryptoKey,
) {
  const inner = http.createServer(callback);
  await new Promise<void>((resolve) => inner.listen(0, "127.0.0.1", resolve));
  const target = `http://127.0.0.1:${(inner.address() as AddressInfo).port}/token`;
  const signer = rewrite.foreignKey ? (await signingKey()).privateKey : providerKey;
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk);
    const upstream = await fetch(target, {
      method: "POST",
      headers: { "content-type": String(req.headers["content-type"]) },
      body: Buffer.concat(chunks).toString(),
    });
    const tokens = await upstream.json();
    if (tokens.id_token) tokens.id_token = await resign(tokens.id_token, rewrite, signer);
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(JSON.stringify(tokens));
  };
  return { answer, close: () => close(inner) };
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** The JWT `jwt` with its claims rewritten, signed (RS256, same header) with `key`. */
async function resign(jwt: string, rewrite: IdTokenRewrite, key: CryptoKey): Promise<string> {
  const [header, payload] = jwt.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  const body = b64(new TextEncoder().encode(JSON.stringify(rewrite.claims?.(claims) ?? claims)));
  const input = new TextEncoder().encode(`${header}.${body}`);
  const signature = await crypto.subtle.sign(SIGNING.name, key, input);
  return `${header}.${body}.${b64(new Uint8Array(signature))}`;
}

/** Follows the provider's pages as a browser would, answering its login and consent forms. */
async function authorize(start: string, login: string, consent: boolean): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  let init: RequestInit = {};
  for (let hops = 0; hops < 20; hops++) {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get("location");
    if (location) {
      await res.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== new URL(start).origin) return next;
      [url, init] = [next.toString(), {}];
      continue;
    }
    const html = await res.text();
    const action = html.match(/<form[^>]*action="([^"]+)"/)?.[1];
    if (!action) throw new Error(`no form at ${url} (${res.status}): ${html.slice(0, 300)}`);
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
      form.set(m[1], m[2]);
    }
    if (html.includes('name="login"')) {
      form.set("login", login);
      form.set("password", "any");
    }
    const target = new URL(action, url);
    if (!consent) {
      [url, init] = [`${url}/abort`, {}];
      continue;
    }
    [url, init] = [target.toString(), { method: "POST", body: form }];
  }
  throw new Error("the provider redirected too often");
}
