/** @jsxImportSource hono/jsx */
/**
 * The registration page that invite links (`/invite/<code>`) and the sign-in
 * page's "Register" link (when registration is open) lead to: username,
 * password (with the password rule) and the invite code, sent by
 * `/assets/ferry.js` to `POST /api/auth/register`.
 */
import { raw } from "hono/html";
import { Layout } from "./layout.tsx";
import { renderMarkdown } from "./markdown.ts";
import { NewAccountForm } from "./account_form.tsx";

/**
 * The registration page, the invite code filled in from the link; where the
 * server has terms of service (`websiteTos`), they are shown and must be
 * accepted.
 */
export function RegisterPage(
  { site, code, tos }: { site: string; code: string; tos: string | null },
) {
  return (
    <Layout site={site} title="Create an account">
      <h1>Create an account</h1>
      <NewAccountForm id="register-form" class="card">
        <label for="invite">Invite code (if you have one)</label>
        <input id="invite" name="code" value={code} autocomplete="off" />
        {tos !== null && (
          <>
            <details class="terms">
              <summary>Terms of service</summary>
              <div class="markdown">{raw(renderMarkdown(tos))}</div>
            </details>
            <label class="check-line">
              <input id="accept-tos" type="checkbox" required />
              I accept the terms of service
            </label>
            <p class="hint">
              Also on their own page: <a href="/auth/tos" target="_blank">terms of service</a>.
            </p>
          </>
        )}
      </NewAccountForm>
      <p>
        Already have one? <a href="/auth/login">Sign in</a>.
      </p>
    </Layout>
  );
}
