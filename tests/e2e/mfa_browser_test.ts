/**
 * The sign-in and security pages in a real browser against the real server
 * process: Debian's chromium driven by playwright-core, with a DevTools
 * virtual authenticator standing in for a platform passkey. WebAuthn needs a
 * secure context, so the pages are browsed as http://localhost (the RP ID),
 * while the server listens on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { Secret, TOTP } from "otpauth";
import type { BrowserContext, Page } from "playwright-core";
import {
  launchChromium,
  logOut,
  NO_BROWSER,
  openUserMenu,
  screenshot,
  setupAdmin,
  watchProblems,
} from "../helpers/browser.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";

/** The login route allows one attempt per 2 seconds per client. */
const LOGIN_INTERVAL_MS = 2100;

/** What a browser test works with. */
interface Session {
  server: ServerProcess;
  /** `http://localhost:<port>`: the origin the browser is on. */
  origin: string;
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors and CSP violations seen so far. */
  problems: string[];
}

/**
 * Starts a server, creates the first user (`admin`/`password123`) with MFA
 * switched on for `localhost`, opens chromium, and runs `fn`.
 */
function browserTest(name: string, fn: (session: Session) => Promise<void>) {
  Deno.test({
    name,
    ignore: NO_BROWSER,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "ferry-mfa-" });
      const server = await startServer({ env: { SERVICE_DATA_DIR: dir } });
      const origin = `http://localhost:${new URL(server.origin).port}`;
      const browser = await launchChromium();
      try {
        const cookie = await setupAdmin(server.origin);
        const settings = await fetch(`${server.origin}/api/server/settings`, {
          method: "PATCH",
          headers: { "content-type": "application/json", cookie },
          body: JSON.stringify({
            mfaTotpEnabled: true,
            mfaPasskeysEnabled: true,
            mfaPasskeysRpID: "localhost",
            mfaPasskeysOrigin: origin,
          }),
        });
        assert.equal(settings.status, 200, await settings.text());

        const context = await browser.newContext();
        const page = await context.newPage();
        const problems = watchProblems(page);
        await fn({ server, origin, context, page, problems });
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
        await server.stop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

/** Signs in on the login page with the password (and `code`, when asked for one). */
async function passwordLogin(page: Page, origin: string, code?: () => string) {
  await page.goto(`${origin}/auth/login`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill("password123");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  if (code) {
    await page.getByLabel("Code from your authenticator app").waitFor();
    await page.waitForTimeout(LOGIN_INTERVAL_MS);
    await page.getByLabel("Code from your authenticator app").fill(code());
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }
  await page.waitForURL(`${origin}/dashboard`);
  assert.equal(await page.locator("#signed-in-as").textContent(), "admin");
}

browserTest("e2e: register a passkey on the security page, then sign in with it", async (s) => {
  const { page, origin } = s;
  const cdp = await s.context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });

  const root = await page.goto(`${origin}/`);
  assert.equal(root?.url(), `${origin}/auth/login`, "/ sends an anonymous visitor to sign in");
  const csp = (await root?.allHeaders())?.["content-security-policy"] ?? "";
  assert.match(csp, /script-src 'nonce-[\w-]{22}' 'strict-dynamic'(;|$)/);
  await screenshot(page, "login");
  await passwordLogin(page, origin);

  await openUserMenu(page);
  await page.getByRole("link", { name: "Security", exact: true }).click();
  await page.waitForURL(`${origin}/dashboard/security`);
  await page.getByText("No passkeys yet.").waitFor();
  await page.getByLabel("Current password").fill("password123");
  await page.getByLabel("Name for a new passkey").fill("Virtual key");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await page.getByRole("cell", { name: "Virtual key", exact: true }).waitFor();
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  assert.equal(credentials.length, 1);
  assert.equal(credentials[0].isResidentCredential, true);
  await screenshot(page, "security-passkey");

  await logOut(page, origin);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.waitForURL(`${origin}/dashboard`);
  assert.equal(await page.locator("#signed-in-as").textContent(), "admin");
  await screenshot(page, "dashboard");

  await page.goto(`${origin}/dashboard/security`);
  const row = page.getByRole("row").filter({ hasText: "Virtual key" });
  assert.doesNotMatch(await row.innerText(), /never/, "the passkey shows when it was last used");
});

browserTest("e2e: turn on TOTP from the QR code page, then sign in with a code", async (s) => {
  const { page, origin } = s;
  await passwordLogin(page, origin);
  await page.goto(`${origin}/dashboard/security`);
  await page.getByRole("button", { name: "Set up codes" }).click();
  await page.getByAltText(/QR code/).waitFor();
  const secret = (await page.locator("#totp-secret").textContent())?.trim() ?? "";
  assert.match(secret, /^[A-Z2-7]{32}$/);
  const qr = await page.getByAltText(/QR code/).getAttribute("src");
  assert.match(qr ?? "", /^data:image\/png;base64,/);
  await screenshot(page, "security-totp");
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
  await page.getByLabel("Current password").fill("password123");
  await page.getByLabel("Code from the app").fill(totp.generate());
  await page.getByRole("button", { name: "Turn on codes" }).click();
  await page.locator("#totp-status", { hasText: /are on/ }).waitFor();

  await logOut(page, origin);
  await page.waitForTimeout(LOGIN_INTERVAL_MS);
  // The enabling code's step is used up; the next step's code is within the window.
  await passwordLogin(page, origin, () => totp.generate({ timestamp: Date.now() + 30_000 }));
});
