/**
 * Issue #35 part 3 in a real browser against the real server, on both
 * stores: the URLs page shortens a link with an expiry, a destination for
 * iPhones and the query string forwarded; the link then routes as set; the
 * edit form clears them again. The page passes axe-core in light and dark;
 * screenshots in light, dark and phone width.
 */
import assert from "node:assert/strict";
import {
  browserTestOnStores,
  checkAccessibility,
  type JourneyContext,
  screenshots,
  setupAdmin,
  signIn,
  watchProblems,
} from "../helpers/browser.ts";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 " +
  "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

/** The admin's short URLs, through the API. */
async function urls(origin: string, cookie: string) {
  const res = await fetch(`${origin}/api/user/urls`, { headers: { cookie } });
  assert.equal(res.status, 200);
  return await res.json();
}

/** Where `/go/<path>` leads a visitor with `agent`. */
async function leadsTo(origin: string, path: string, agent: string) {
  const res = await fetch(`${origin}/go/${path}`, {
    redirect: "manual",
    headers: { "user-agent": agent },
  });
  await res.body?.cancel();
  return res.headers.get("location");
}

async function journey({ browser, origin, kind }: JourneyContext) {
  const cookie = await setupAdmin(origin);
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems = watchProblems(page, false);
  await signIn(page, origin);
  await page.goto(`${origin}/dashboard/urls`);

  const shorten = page.getByRole("form", { name: "Shorten a URL" });
  await shorten.getByLabel("Destination").fill("https://example.com/web");
  await shorten.getByLabel("Vanity (optional)").fill("ruled");
  await shorten.getByText("Expiry and redirect rules").click();
  await shorten.getByLabel("Expires (optional)").fill("2031-05-01T12:00");
  await shorten.getByLabel("Link for iPhone and iPad (optional)")
    .fill("https://apps.example/ios");
  await shorten.getByLabel("Forward the visit's query string").check();
  await checkAccessibility(page, "URLs with the rules open");
  await shorten.getByRole("button", { name: "Shorten" }).click();
  const row = page.getByRole("list", { name: "Short URLs" }).getByRole("listitem")
    .filter({ hasText: "ruled" });
  await row.getByText("rules", { exact: true }).waitFor();
  await row.getByText(/expires/).waitFor();

  const [made] = await urls(origin, cookie);
  assert.deepEqual(made.deviceDestinations, { ios: "https://apps.example/ios" });
  assert.equal(made.forwardQuery, true);
  assert.equal(new Date(made.expiresAt).getFullYear(), 2031);
  assert.equal(
    await leadsTo(origin, "ruled?ref=mail", IPHONE),
    "https://apps.example/ios?ref=mail",
  );
  assert.equal(await leadsTo(origin, "ruled", "curl/8"), "https://example.com/web");

  await row.getByRole("button", { name: "Edit ruled" }).click();
  const edit = page.getByRole("form", { name: "Edit ruled" });
  assert.equal(
    await edit.getByLabel("Link for iPhone and iPad (optional)").inputValue(),
    "https://apps.example/ios",
    "the edit form holds the rules",
  );
  await checkAccessibility(page, "URLs with a URL's rules in its edit form");
  await screenshots(page, "urls-rules", kind);
  await edit.getByLabel("Expires (optional)").fill("");
  await edit.getByLabel("Link for iPhone and iPad (optional)").fill("");
  await edit.getByLabel("Forward the visit's query string").uncheck();
  await edit.getByRole("button", { name: "Save" }).click();
  await edit.waitFor({ state: "detached" });
  const [after] = await urls(origin, cookie);
  assert.equal(after.expiresAt, null);
  assert.equal(after.deviceDestinations, null);
  assert.equal(after.forwardQuery, false);
  assert.equal(await leadsTo(origin, "ruled?ref=mail", IPHONE), "https://example.com/web");
  assert.deepEqual(problems, []);
  await context.close();
}

browserTestOnStores(
  "issue #35.3: a short URL's expiry, device destination and forwarded query from the URLs page",
  { SERVICE_RATELIMIT_ENABLED: "false" },
  journey,
);
