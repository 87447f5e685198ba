/** @jsxImportSource hono/jsx */
/**
 * The form that makes an account, shared by the first-run page and the
 * registration page: username, password with the password rule, what the
 * page adds (an invite code, the terms), and "Create the account".
 * `/assets/ferry.js` sends it by its `id`.
 */
import type { Child } from "hono/jsx";
import { MIN_PASSWORD_LENGTH } from "../../core/password_policy.ts";

/** The password rule (`core/password_policy.ts`) as people read it; the API's 400 says the rest. */
export const PASSWORD_RULE = `At least ${MIN_PASSWORD_LENGTH} characters.`;

/**
 * The username and password fields of the sign-in and new-account forms;
 * `fresh`: a new password, with the password rule under it.
 */
export function CredentialFields({ fresh }: { fresh: boolean }) {
  return (
    <>
      <label for="username">Username</label>
      <input id="username" name="username" autocomplete="username" required />
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete={fresh ? "new-password" : "current-password"}
        minlength={fresh ? MIN_PASSWORD_LENGTH : undefined}
        aria-describedby={fresh ? "password-rule" : undefined}
        required
      />
      {fresh && <p id="password-rule" class="hint">{PASSWORD_RULE}</p>}
    </>
  );
}

/** A new account's form: `heading` above the fields, `children` after the password. */
export function NewAccountForm(
  { id, class: className, heading, children }: {
    id: string;
    class: string;
    heading?: Child;
    children?: Child;
  },
) {
  return (
    <form id={id} class={className}>
      {heading}
      <CredentialFields fresh />
      {children}
      <button type="submit">Create the account</button>
    </form>
  );
}
