/** @jsxImportSource hono/jsx */
/**
 * The security page: turn TOTP on (with its QR code) and off, and register,
 * list and remove passkeys. Each section says so when the server has the
 * feature off. `/assets/ferry.js` calls the `/api/user/mfa/…` routes, with
 * the current password typed at the top of the page as their proof.
 */
import type { passkeyView } from "../../core/passkeys.ts";
import { Layout } from "./layout.tsx";

/** What the security page shows. */
export interface SecurityProps {
  site: string;
  /** `mfaTotpEnabled`. */
  totpAvailable: boolean;
  /** Whether the user has TOTP on. */
  totpEnabled: boolean;
  /** The user's passkeys, or `null` when passkeys are off on the server. */
  passkeys: ReturnType<typeof passkeyView>[] | null;
  /** Whether the account has a password, which every change here then asks for. */
  hasPassword: boolean;
}

/** `2026-05-01T12:34:56.000Z` as `2026-05-01 12:34 UTC`. */
const when = (iso: string | null) => iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : "never";

function Totp({ totpAvailable, totpEnabled }: SecurityProps) {
  if (!totpAvailable) {
    const still = totpEnabled ? "; your account still asks for a code when you sign in" : "";
    return <p>Two-factor codes are turned off on this server{still}.</p>;
  }
  if (totpEnabled) {
    return (
      <>
        <p id="totp-status">
          Two-factor codes are <strong>on</strong>. Signing in with a password asks for a code.
        </p>
        <form id="totp-disable" class="inline">
          <label for="totp-disable-code">Current code</label>
          <input
            id="totp-disable-code"
            inputmode="numeric"
            pattern="[0-9]{6}"
            maxlength={6}
            autocomplete="one-time-code"
            required
          />
          <button type="submit">Turn off codes</button>
        </form>
      </>
    );
  }
  return (
    <>
      <p id="totp-status">
        Two-factor codes are <strong>off</strong>.
      </p>
      <button type="button" id="totp-setup">Set up codes</button>
      <div id="totp-enroll" hidden>
        <p>Scan this QR code with an authenticator app, or type in the key below it.</p>
        <img id="totp-qr" alt="QR code to add this account to an authenticator app" />
        <p>
          Key: <code id="totp-secret"></code>
        </p>
        <form id="totp-enable" class="inline">
          <label for="totp-code">Code from the app</label>
          <input
            id="totp-code"
            inputmode="numeric"
            pattern="[0-9]{6}"
            maxlength={6}
            autocomplete="one-time-code"
            required
          />
          <button type="submit">Turn on codes</button>
        </form>
      </div>
    </>
  );
}

function Passkeys({ passkeys }: SecurityProps) {
  if (passkeys === null) return <p>Passkeys are turned off on this server.</p>;
  return (
    <>
      {passkeys.length === 0 ? <p id="passkeys-empty">No passkeys yet.</p> : (
        <table id="passkeys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {passkeys.map((p) => (
              <tr>
                <td>{p.name}</td>
                <td>{when(p.createdAt)}</td>
                <td>{when(p.lastUsed)}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    data-remove-passkey={p.id}
                    aria-label={`Remove passkey ${p.name}`}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form id="passkey-add" class="inline">
        <label for="passkey-name">Name for a new passkey</label>
        <input id="passkey-name" maxlength={100} placeholder="e.g. work laptop" required />
        <button type="submit">Add a passkey</button>
      </form>
    </>
  );
}

/** The security page. */
export function SecurityPage(props: SecurityProps) {
  return (
    <Layout site={props.site} title="Security" current="/dashboard/security">
      <h1>Security</h1>
      {props.hasPassword && (
        <section class="card stack">
          <label for="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autocomplete="current-password"
            aria-describedby="current-password-hint"
          />
          <p id="current-password-hint">
            Turning codes on and adding or removing a passkey ask for it, unless you signed in with
            it moments ago. A current code alone turns codes off.
          </p>
        </section>
      )}
      <section class="card" aria-labelledby="totp-heading">
        <h2 id="totp-heading">Two-factor codes (TOTP)</h2>
        <Totp {...props} />
      </section>
      <section class="card" aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">Passkeys</h2>
        <Passkeys {...props} />
      </section>
    </Layout>
  );
}
