/**
 * Signing in through an OpenID Connect provider in a real browser: the real
 * server process, a real provider (`oidc-provider` on loopback) and chromium.
 * The provider's button on the login page registers and signs in a new user;
 * the account page lists the linked account and refuses to unlink the last
 * way to sign in; once she has TOTP, the provider is followed by her code; a password user linking that same account gets the error
 * page with its way back.
 */
import assert from "node:assert/strict";
import { Secret, TOTP } from "otpauth";
import type { BrowserContext, Page } from "playwright-core";
import {
  launchChromium,
  NO_BROWSER,
  screenshot,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";
import { startOidcProvider } from "../helpers/oidc_provider.ts";
import { startServer } from "../helpers/process.ts";

/** Turns TOTP on on the server (admin's cookie) and for the user of `cookie`; returns the secret. */
async function enableTotp(origin: string, admin: string, cookie: string): Promise<string> {
  const call = async (method: string, path: string, as: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { "content-type": "application/json", cookie: as },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return await res.json();
  };
  await call("PATCH", "/api/server/settings", admin, { mfaTotpEnabled: true });
  const { secret } = await call("GET", "/api/user/mfa/totp", cookie);
  const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
  await call("POST", "/api/user/mfa/totp", cookie, { code, secret });
  return secret;
}

/** Signs in as `login` on the provider's page and consents. */
async function atProvider(page: Page, login: string) {
  await page.waitForURL(/\/interaction\//);
  const loginPage = page.url();
  await page.locator('input[name="login"]').fill(`sub-${login}`);
  await page.locator('input[name="password"]').fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.waitForURL((url) => url.toString() !== loginPage);
  if (page.url().includes("/interaction/")) {
    await page.getByRole("button", { name: "Continue" }).click(); // consent
  }
}

/**
 * Leaves the dashboard, then clears every cookie (the provider's too: it
 * shares the host). Leaving first keeps the home page's own requests, still
 * starting, from going out without the session (401s no person would see).
 */
async function signOutHere(page: Page, context: BrowserContext) {
  await page.goto("about:blank");
  await context.clearCookies();
}

Deno.test({
  name:
    "conformance: a person signs in with an OIDC provider, sees the link, and cannot link it twice",
  ignore: NO_BROWSER,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ferry-oauth-" });
    const server = await startServer({ env: { SERVICE_DATA_DIR: dir } });
    const origin = server.origin;
    const idp = await startOidcProvider({ redirectUri: `${origin}/api/auth/oauth/oidc` });
    const browser = await launchChromium();
    try {
      const cookie = await setupAdmin(origin);
      const settings = await fetch(`${origin}/api/server/settings`, {
        method: "PATCH",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify(idp.settings),
      });
      assert.equal(settings.status, 200, await settings.text());

      const context = await browser.newContext();
      const page = await context.newPage();
      const problems = watchProblems(page);
      await page.goto(`${origin}/auth/login`);
      await page.getByRole("link", { name: "Sign in with OpenID Connect" }).click();
      await atProvider(page, "alice");
      await page.waitForURL(`${origin}/dashboard`);
      assert.equal(await page.locator("#signed-in-as").textContent(), "alice");

      await page.goto(`${origin}/dashboard/security`);
      const card = page.locator("section", {
        has: page.getByRole("heading", { name: "Linked accounts" }),
      });
      await card.getByRole("cell", { name: "alice" }).waitFor();
      await card.getByRole("button", { name: "Unlink OpenID Connect" }).click();
      // The refusal comes as an alert toast.
      await page.getByRole("alert")
        .filter({ hasText: "You can't delete your last OAuth provider without a password" })
        .waitFor();
      await screenshot(page, "oauth-linked-accounts");

      // Alice turns TOTP on; the provider alone no longer signs her in.
      const alice = (await context.cookies()).find((c) => c.name === "service_session")!;
      const secret = await enableTotp(origin, cookie, `service_session=${alice.value}`);
      await signOutHere(page, context);
      await page.goto(`${origin}/auth/login`);
      await page.getByRole("link", { name: "Sign in with OpenID Connect" }).click();
      await atProvider(page, "alice");
      await page.waitForURL(`${origin}/auth/login?oauth=totp`);
      const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
      await page.getByLabel("Code from your authenticator app")
        .fill(totp.generate({ timestamp: Date.now() + 30_000 }));
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL(`${origin}/dashboard`);
      assert.equal(await page.locator("#signed-in-as").textContent(), "alice");

      await signOutHere(page, context);
      await signIn(page, origin);
      await page.goto(`${origin}/dashboard/security`);
      await page.getByRole("button", { name: "Link OpenID Connect" }).click();
      await atProvider(page, "alice");
      await page.getByText("This OpenID Connect account is linked to another user").waitFor();
      await page.getByRole("link", { name: "Back to sign in" }).click();
      await page.waitForURL(`${origin}/dashboard`);
      // Expected: the two refusals (400). The provider's own pages ask for web fonts and a
      // favicon that are not there (console errors without a response of Ferry's).
      const ferry = problems.filter((p) => p.startsWith("4") || p.startsWith("5"));
      assert.deepEqual(ferry.map((p) => p.replace(/\?.*/, "").replace(origin, "")), [
        "400 /api/auth/oauth",
        "400 /api/auth/oauth/oidc",
      ]);
      const others = problems.filter((p) =>
        p.startsWith("page") || p.startsWith("console") && !p.includes("Failed to load resource")
      );
      assert.deepEqual(others, [], "no script error, no CSP violation");
    } finally {
      await browser.close();
      await idp.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
