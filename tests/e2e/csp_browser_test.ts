/**
 * The dashboard under its nonce-only script policy, in a real browser
 * (issue #30, item 12): the page's own scripts run (the bundle mounts, the
 * theme switch is labelled); an uploaded `.js` and `.css` inserted into the
 * dashboard neither run nor apply (served as plain text with `nosniff`); and a
 * script of Ferry's own origin that the response did not name by its nonce,
 * in markup the page parses (an injection's way in), does not run either.
 */
import assert from "node:assert/strict";
import { browserTestOnStores, setupAdmin, signIn } from "../helpers/browser.ts";

/** Uploads `name` with `content` as `type` with the session `cookie`; its `/raw` path. */
async function upload(origin: string, cookie: string, name: string, content: string, type: string) {
  const form = new FormData();
  form.append("file", new Blob([content], { type }), name);
  const res = await fetch(`${origin}/api/upload`, {
    method: "POST",
    headers: { cookie },
    body: form,
  });
  assert.equal(res.status, 200, await res.clone().text());
  const { files } = await res.json();
  return `/raw/${encodeURIComponent(files[0].name)}`;
}

browserTestOnStores(
  "security #30.12: the dashboard runs under its nonce; uploaded and un-named scripts do not",
  {},
  async ({ browser, origin }) => {
    const cookie = await setupAdmin(origin);
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await signIn(page, origin);
    const answer = await page.goto(`${origin}/dashboard`);
    const csp = (await answer?.allHeaders())?.["content-security-policy"] ?? "";
    const nonce = /script-src 'nonce-([\w-]+)' 'strict-dynamic'(;|$)/.exec(csp)?.[1];
    assert.ok(nonce, csp);

    // The page's own scripts ran: the bundle mounted its page, and ferry.js was loaded under its nonce.
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    await page.getByText("Nothing uploaded yet.").waitFor();
    const loaded = await page.evaluate(`performance.getEntriesByType("resource")
      .some((entry) => /\\/assets\\/ferry\\.[^/]*js$/.test(entry.name))`);
    assert.equal(loaded, true, "ferry.js was loaded");
    assert.deepEqual(errors, [], "no violation on the page as served");

    // An uploaded script and stylesheet, inserted as a script would insert them: refused.
    const script = await upload(
      origin,
      cookie,
      "evil.js",
      "window.pwned = true;",
      "text/javascript",
    );
    const style = await upload(
      origin,
      cookie,
      "evil.css",
      "body { background: rgb(255, 0, 0) !important; }",
      "text/css",
    );

    const outcome: { events: string[]; pwned: boolean; background: string } = await page.evaluate(
      `(async () => {
        const loaded = (element) => new Promise((resolve) => {
          element.onload = () => resolve("load");
          element.onerror = () => resolve("error");
        });
        const s = document.createElement("script");
        s.src = ${JSON.stringify(script)};
        const l = document.createElement("link");
        l.rel = "stylesheet";
        l.href = ${JSON.stringify(style)};
        const events = [loaded(s), loaded(l)];
        document.head.append(s, l);
        return {
          events: await Promise.all(events),
          pwned: window.pwned ?? false,
          background: getComputedStyle(document.body).backgroundColor,
        };
      })()`,
    );
    assert.deepEqual(outcome.events, ["error", "error"]);
    assert.equal(outcome.pwned, false, "the uploaded script did not run");
    assert.notEqual(outcome.background, "rgb(255, 0, 0)", "the uploaded style did not apply");

    // Markup parsed into the page (as an injection would be) runs no script of this origin
    // that lacks the nonce: ferry.js, which would label the frame's switch, stays idle.
    const before = errors.length;
    const injected: string | null = await page.evaluate(`(async () => {
      const frame = document.createElement("iframe");
      const ready = new Promise((resolve) => (frame.onload = resolve));
      const js = document.querySelector("script[src*='/assets/ferry.']").src;
      frame.srcdoc = '<button id="theme-switch"></button><script src="' + js + '"></scr' + 'ipt>';
      document.body.append(frame);
      await ready;
      await new Promise((resolve) => setTimeout(resolve, 500));
      return frame.contentDocument?.getElementById("theme-switch")?.textContent ?? null;
    })()`);
    assert.equal(injected, "", "the un-named script did not run");
    const refusals = errors.slice(before);
    assert.ok(
      refusals.some((e) => /Content Security Policy/.test(e)),
      `a CSP refusal was reported: ${JSON.stringify(errors)}`,
    );
    for (const error of errors.slice(0, before)) {
      assert.match(error, /MIME type|Failed to load resource/, error);
    }
    await context.close();
  },
);
