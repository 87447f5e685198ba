/** @jsxImportSource hono/jsx */
/**
 * The first-run page, `/auth/setup`, shown while the server has no user
 * (every page a visitor opens leads here then): a short welcome, the first
 * account's username and password (a SUPERADMIN), with the password rule.
 * `/assets/ferry.js` sends the form to `POST /api/setup`, which signs the
 * new account in, and then shows the finished step: on to the dashboard, or
 * to the import of a Zipline export. Once a user exists the page is gone.
 */
import { NewAccountForm } from "./account_form.tsx";
import { Icon } from "./icons.tsx";
import { Layout } from "./layout.tsx";

/** The first-run page. */
export function SetupPage({ site }: { site: string }) {
  return (
    <Layout site={site} title="Welcome">
      <section class="card setup" aria-labelledby="setup-title">
        <div id="setup-start">
          <h1 id="setup-title">Welcome to {site}</h1>
          <p>
            This server has no accounts yet. Create the first one: it is the{" "}
            <strong>super-administrator</strong>, who may change every server setting, add people
            and import an instance exported from Zipline.
          </p>
          <ul class="setup-notes">
            <li>
              Settings live under <em>Server settings</em> once you are in; those given as{" "}
              <code>SERVICE_…</code> environment variables stay as the process was started.
            </li>
            <li>
              Every client speaks the API described at <a href="/api/docs">/api/docs</a>
              , the same as Zipline v4's, so ShareX and Flameshot setups keep working.
            </li>
          </ul>
          <NewAccountForm id="setup-form" class="setup-form" heading={<h2>Your account</h2>} />
        </div>
        <div id="setup-done" hidden>
          <h1 id="setup-done-title" tabindex={-1}>
            <Icon name="ok" size={28} /> You are all set
          </h1>
          <p>
            Signed in as <strong id="setup-user"></strong>, the super-administrator of {site}.
          </p>
          <div class="page-actions">
            <a class="button" href="/dashboard">Open the dashboard</a>
            <a class="button secondary" href="/dashboard/admin/transfer">
              Import from Zipline
            </a>
          </div>
          <p class="hint">
            Coming from Zipline? Export your instance from Zipline's administrator actions, then
            import that file on the import page.
          </p>
        </div>
      </section>
    </Layout>
  );
}
