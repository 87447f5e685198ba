/** @jsxImportSource hono/jsx */
/**
 * The page a password-protected short URL sends to (`/view/url/<id>`,
 * reference §6.5): one password field, sent by `/assets/ferry.js` to
 * `POST /api/user/urls/<id>/password`. On success the script reloads this
 * page, which now finds the access cookie, counts the view and redirects to
 * the destination. Nothing about the destination is shown before that.
 */
import { Layout } from "./layout.tsx";

/** The password form for the URL `urlId`. */
export function UrlPasswordPage({ site, urlId }: { site: string; urlId: string }) {
  return (
    <Layout site={site} title="Password required">
      <h1>Password required</h1>
      <p>This link is protected by a password.</p>
      <form id="url-password-form" class="card" data-url-id={urlId}>
        <label for="url-password">Password</label>
        <input
          id="url-password"
          name="password"
          type="password"
          autocomplete="off"
          required
        />
        <button type="submit">Open the link</button>
      </form>
    </Layout>
  );
}
