/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback for the OAuth
 * tests, with one client registered for the test app and an account for
 * every login name (any password): its `sub` is `sub-<login>` and its
 * `preferred_username` the login name. `authorize` plays the person at the
 * provider: it follows the authorization URL, fills in the provider's login
 * and consent forms, and returns the URL the provider sends the browser back
 * to (with `code`, or `error` when the person cancels at the first form).
 */
import Provider from "oidc-provider";
import http from "node:http";
import type { AddressInfo } from "node:net";

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
}

/** Starts a provider on 127.0.0.1 on a free port. */
export async function startOidcProvider(options: ProviderOptions): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
  server.on("request", provider.callback());
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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
