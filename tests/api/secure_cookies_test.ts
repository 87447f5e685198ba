/**
 * Every cookie Ferry sets is `Secure` when the client reached it over HTTPS
 * (issue #30, item 11): on Ferry's own TLS socket, or at a trusted proxy that
 * says so in `X-Forwarded-Proto`, not only with `coreReturnHttpsUrls`; and
 * each goes through one place, `routes/cookies.ts`.
 */
import assert from "node:assert/strict";
import { apiTest, type TestApp } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

/** How a request reached the server, and whether its cookies must be `Secure`. */
interface Way {
  what: string;
  /** The origin the request is sent to (`https:` as if on Ferry's own TLS socket). */
  origin: string;
  headers: Record<string, string>;
  secure: boolean;
}

/** The ways, with `coreTrustProxy` on (and `coreTrustProxyHops` 1) when `trusted`. */
function ways(trusted: boolean): Way[] {
  return [
    { what: "plain HTTP", origin: "http://ferry.test", headers: {}, secure: false },
    { what: "Ferry's own TLS", origin: "https://ferry.test", headers: {}, secure: true },
    {
      what: "X-Forwarded-Proto: https",
      origin: "http://ferry.test",
      headers: { "x-forwarded-proto": "https" },
      secure: trusted,
    },
    {
      what: "X-Forwarded-Proto: HTTPS",
      origin: "http://ferry.test",
      headers: { "x-forwarded-proto": "HTTPS" },
      secure: trusted,
    },
    {
      what: "the proxy appended https to what the client wrote",
      origin: "http://ferry.test",
      headers: { "x-forwarded-proto": "http, https" },
      secure: trusted,
    },
    {
      what: "the client wrote https, the proxy appended http",
      origin: "http://ferry.test",
      headers: { "x-forwarded-proto": "https, http" },
      secure: false,
    },
    {
      what: "X-Forwarded-Proto: http",
      origin: "http://ferry.test",
      headers: { "x-forwarded-proto": "http" },
      secure: false,
    },
  ];
}

/** Sends `init` to `path` the `way` said; the cookies the answer sets. */
async function cookiesOf(app: TestApp, way: Way, path: string, init: RequestInit = {}) {
  const res = await app.fetch(
    new Request(new URL(path, way.origin), {
      ...init,
      headers: { ...way.headers, ...init.headers as Record<string, string> },
    }),
  );
  assert.ok(res.status < 400, `${path}: ${res.status} ${await res.clone().text()}`);
  await res.body?.cancel();
  const cookies = res.headers.getSetCookie();
  assert.ok(cookies.length > 0, `${path} set a cookie`);
  return cookies;
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** Asserts that every cookie of every kind Ferry sets is `Secure` exactly when the way says. */
async function assertEveryCookie(app: TestApp, trusted: boolean) {
  const alice = await actor(app, "USER", "alice");
  const file = await uploadOne(app, { ...alice.headers, "x-service-password": "hunter2" });
  const url = await app.json("POST", "/api/user/urls", {
    destination: "https://example.com/",
  }, { ...alice.headers, "x-service-password": "open sesame" });
  for (const way of ways(trusted)) {
    app.clock.advance(2000); // past the password attempts' per-second limit
    const login = json({ username: "alice", password: "password" });
    const session = await cookiesOf(app, way, "/api/auth/login", login);
    const cookie = session[0].split(";")[0];
    const set = [
      ...session,
      ...await cookiesOf(app, way, "/api/auth/logout", { method: "POST", headers: { cookie } }),
      ...await cookiesOf(app, way, "/api/auth/webauthn/options"),
      ...await cookiesOf(
        app,
        way,
        `/api/user/files/${file.id}/password`,
        json({ password: "hunter2" }),
      ),
      ...await cookiesOf(
        app,
        way,
        `/api/user/urls/${url.body.id}/password`,
        json({ password: "open sesame" }),
      ),
    ];
    const names = set.map((c) => c.split("=")[0]);
    assert.deepEqual(names, [
      "service_session",
      "service_session",
      "webauthn-challenge-id",
      `file_pw_${file.id}`,
      `url_pw_${url.body.id}`,
    ]);
    for (const c of set) {
      assert.equal(/;\s*Secure(;|$)/i.test(c), way.secure, `${way.what}: ${c}`);
      assert.match(c, /;\s*SameSite=Lax(;|$)/i, c);
    }
  }
}

/** Passkeys on, so that `/api/auth/webauthn/options` sets its challenge cookie. */
async function configure(app: TestApp, settings: Record<string, unknown>) {
  await app.services.store.settings.update({
    mfaPasskeysEnabled: true,
    mfaPasskeysRpID: "ferry.test",
    mfaPasskeysOrigin: "http://ferry.test",
    ...settings,
  });
  await app.services.settings.reload();
}

apiTest(
  "security #30.11: cookies are Secure over HTTPS, by X-Forwarded-Proto only from a trusted proxy",
  async (app) => {
    await configure(app, { coreTrustProxy: true });
    await assertEveryCookie(app, true);
  },
);

apiTest(
  "security #30.11: an untrusted X-Forwarded-Proto makes no cookie Secure",
  async (app) => {
    await configure(app, { coreTrustProxy: false });
    await assertEveryCookie(app, false);
  },
);

apiTest("security #30.11: coreReturnHttpsUrls still makes every cookie Secure", async (app) => {
  await configure(app, { coreReturnHttpsUrls: true });
  await actor(app, "USER", "alice");
  const cookies = await cookiesOf(
    app,
    { what: "plain HTTP", origin: "http://ferry.test", headers: {}, secure: true },
    "/api/auth/login",
    json({ username: "alice", password: "password" }),
  );
  assert.match(cookies[0], /;\s*Secure(;|$)/i);
});

Deno.test("security #30.11: every cookie is set through routes/cookies.ts", async () => {
  const routes = new URL("../../routes/", import.meta.url);
  const offenders: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) {
        if (entry.name !== "assets") await walk(url);
      } else if (/\.tsx?$/.test(entry.name) && !url.pathname.endsWith("/routes/cookies.ts")) {
        const text = await Deno.readTextFile(url);
        if (/\b(setCookie|deleteCookie|setSignedCookie)\b/.test(text)) offenders.push(url.pathname);
      }
    }
  };
  await walk(routes);
  assert.deepEqual(offenders, [], "set or clear cookies with setServiceCookie/clearServiceCookie");
});
