/** @jsxImportSource hono/jsx */
/**
 * The sign-in page: username and password, then the TOTP code when the
 * account asks for one, or a passkey instead of both, or an OAuth provider
 * (plain links to `/api/auth/oauth/<provider>`). After a provider, a user
 * with TOTP comes back here for the code (`oauthTotp`). `/assets/ferry.js`
 * sends the forms to `/api/auth/login`, `/api/auth/oauth/totp` and
 * `/api/auth/webauthn`.
 */
import { CredentialFields } from "./account_form.tsx";
import { useContext } from "hono/jsx";
import { Layout } from "./layout.tsx";
import { LookContext } from "./look.ts";

/** What the page offers. */
export interface LoginOptions {
  site: string;
  /** The passkey button: only when passkeys are set up on the server. */
  passkeys: boolean;
  /** The OAuth providers to offer. */
  providers: { slug: string; name: string }[];
  /** The username and password form (not under `oauthLoginOnly`). */
  passwordForm: boolean;
  /** The TOTP step of a sign-in through a provider. */
  oauthTotp: boolean;
  /** Whether anyone may create an account (`featuresUserRegistration`): a link to the form. */
  registration: boolean;
  /** Whether the server has terms of service: a link to them. */
  tos: boolean;
}

/** The sign-in page. */
export function LoginPage(o: LoginOptions) {
  const background = useContext(LookContext).loginBackground;
  return (
    <Layout site={o.site} title="Sign in">
      {background && (
        <img class={background.blur ? "backdrop blur" : "backdrop"} src={background.url} alt="" />
      )}
      <h1>Sign in</h1>
      {o.oauthTotp ? <OauthTotpForm /> : (
        <>
          {o.passwordForm && <PasswordForm />}
          {o.providers.length > 0 && (
            <div class="card alternative" id="oauth-providers">
              {o.passwordForm && <p>Or with another account:</p>}
              {o.providers.map((p) => (
                <a class="button" href={`/api/auth/oauth/${p.slug}`}>Sign in with {p.name}</a>
              ))}
            </div>
          )}
          {o.passkeys && (
            <div class="card alternative">
              <p>Or, without a password:</p>
              <button type="button" id="passkey-login">Sign in with a passkey</button>
            </div>
          )}
        </>
      )}
      {(o.registration || o.tos) && (
        <p class="below-card">
          {o.registration && (
            <>
              No account yet? <a href="/auth/register">Register</a>
            </>
          )}
          {o.registration && o.tos && " · "}
          {o.tos && <a href="/auth/tos">Terms of service</a>}
        </p>
      )}
    </Layout>
  );
}

/** The code a user with TOTP types after signing in through a provider. */
function OauthTotpForm() {
  return (
    <form id="oauth-totp-form" class="card">
      <p>Enter the code from your authenticator app to finish signing in.</p>
      <label for="oauth-code">Code from your authenticator app</label>
      <input
        id="oauth-code"
        name="code"
        inputmode="numeric"
        pattern="[0-9]{6}"
        maxlength={6}
        autocomplete="one-time-code"
        required
      />
      <button type="submit">Sign in</button>
    </form>
  );
}

function PasswordForm() {
  return (
    <form id="login-form" class="card">
      <CredentialFields fresh={false} />
      <div id="totp-step" hidden>
        <label for="code">Code from your authenticator app</label>
        <input
          id="code"
          name="code"
          inputmode="numeric"
          pattern="[0-9]{6}"
          maxlength={6}
          autocomplete="one-time-code"
        />
      </div>
      <button type="submit">Sign in</button>
    </form>
  );
}
