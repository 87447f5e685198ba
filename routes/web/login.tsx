/** @jsxImportSource hono/jsx */
/**
 * The sign-in page: username and password, then the TOTP code when the
 * account asks for one, or a passkey instead of both. `/assets/ferry.js`
 * sends the forms to `/api/auth/login` and `/api/auth/webauthn`.
 */
import { useContext } from "hono/jsx";
import { Layout } from "./layout.tsx";
import { LookContext } from "./look.ts";

/** The sign-in page; the passkey button only when passkeys are set up on the server. */
export function LoginPage({ site, passkeys }: { site: string; passkeys: boolean }) {
  const background = useContext(LookContext).loginBackground;
  return (
    <Layout site={site} title="Sign in">
      {background && (
        <img class={background.blur ? "backdrop blur" : "backdrop"} src={background.url} alt="" />
      )}
      <h1>Sign in</h1>
      <form id="login-form" class="card">
        <label for="username">Username</label>
        <input id="username" name="username" autocomplete="username" required />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
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
      {passkeys && (
        <div class="card alternative">
          <p>Or, without a password:</p>
          <button type="button" id="passkey-login">Sign in with a passkey</button>
        </div>
      )}
    </Layout>
  );
}
