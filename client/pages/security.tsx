/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/security`: the ways to sign in. The password, two-factor codes
 * (TOTP, enrolled from a QR code), passkeys (register, list, remove), linked
 * OAuth accounts (link, unlink) and the sessions (sign out one or all
 * others). Every credential change sends the current password typed once at
 * the top of the page, when the account has one (a sign-in moments ago is
 * proof without it; a current code alone turns codes off).
 */
import { useEffect, useState } from "preact/hooks";
import { getMe } from "../api/account.ts";
import {
  addPasskey,
  changePassword,
  disableTotp,
  enableTotp,
  linkOauth,
  listOauthLinks,
  listPasskeys,
  listSessions,
  mfaAvailability,
  type OauthLink,
  type OauthProvider,
  oauthProviders,
  type Passkey,
  type Proof,
  removePasskey,
  revokeSessions,
  type Sessions,
  type TotpSetup,
  totpSetup,
  unlinkOauth,
} from "../api/security.ts";
import type { PageConfig } from "../config.ts";
import { formatDate } from "../format.ts";
import { TextField } from "../components/field.tsx";
import { ListTable } from "../components/list_table.tsx";
import { confirmAction, toast, withToast } from "../components/feedback.tsx";
import { useLoad } from "../hooks.ts";

/** A failure of the browser's passkey prompt, in words for a cancelled one. */
function promptFailure(error: unknown): Error {
  return error instanceof DOMException && error.name === "NotAllowedError"
    ? new Error("The passkey prompt was cancelled.")
    : error as Error;
}

/** The six-digit code field of an authenticator app. */
function CodeField(
  { id, label, value, onValue }: {
    id: string;
    label: string;
    value: string;
    onValue: (v: string) => void;
  },
) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        inputMode="numeric"
        pattern="[0-9]{6}"
        maxLength={6}
        autoComplete="one-time-code"
        required
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
    </div>
  );
}

function PasswordCard({ proof }: { proof: Proof }) {
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    if (next !== again) return toast("The new passwords differ.", "error");
    const ok = await withToast(
      "Password changed; your other sessions were signed out.",
      () => changePassword(next, proof),
    );
    if (ok) {
      setNext("");
      setAgain("");
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <TextField
        label="New password"
        type="password"
        autocomplete="new-password"
        required
        value={next}
        onValue={setNext}
      />
      <TextField
        label="New password again"
        type="password"
        autocomplete="new-password"
        required
        value={again}
        onValue={setAgain}
      />
      <button type="submit" class="primary">Change password</button>
    </form>
  );
}

function TotpCard(
  { available, enabled, proof, onChange }: {
    available: boolean;
    enabled: boolean;
    proof: Proof;
    onChange: () => void;
  },
) {
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [code, setCode] = useState("");
  if (!available) {
    return (
      <section class="card" aria-labelledby="totp-heading">
        <h2 id="totp-heading">Two-factor codes (TOTP)</h2>
        <p>
          Two-factor codes are turned off on this server
          {enabled ? "; your account still asks for a code when you sign in" : ""}.
        </p>
      </section>
    );
  }
  const turnOn = async (event: Event) => {
    event.preventDefault();
    if (!setup) return;
    const ok = await withToast(
      "Two-factor codes are on.",
      () => enableTotp(setup.secret, code, proof),
    );
    if (ok) {
      setSetup(null);
      setCode("");
      onChange();
    }
  };
  const turnOff = async (event: Event) => {
    event.preventDefault();
    if (await withToast("Two-factor codes are off.", () => disableTotp(code, proof))) {
      setCode("");
      onChange();
    }
  };
  return (
    <section class="card" aria-labelledby="totp-heading">
      <h2 id="totp-heading">Two-factor codes (TOTP)</h2>
      <p id="totp-status">
        Two-factor codes are <strong>{enabled ? "on" : "off"}</strong>.
        {enabled && " Signing in with a password asks for a code."}
      </p>
      {enabled && (
        <form class="inline" onSubmit={turnOff} aria-label="Turn off two-factor codes">
          <CodeField id="totp-disable-code" label="Current code" value={code} onValue={setCode} />
          <button type="submit">Turn off codes</button>
        </form>
      )}
      {!enabled && setup === null && (
        <button
          type="button"
          onClick={() => totpSetup().then(setSetup, (e: Error) => toast(e.message, "error"))}
        >
          Set up codes
        </button>
      )}
      {!enabled && setup && (
        <div class="totp-enroll">
          <p>Scan this QR code with an authenticator app, or type in the key below it.</p>
          <img
            class="totp-qr"
            src={setup.qrcode}
            alt="QR code to add this account to an authenticator app"
          />
          <p>
            Key: <code id="totp-secret">{setup.secret}</code>
          </p>
          <form class="inline" onSubmit={turnOn} aria-label="Turn on two-factor codes">
            <CodeField id="totp-code" label="Code from the app" value={code} onValue={setCode} />
            <button type="submit" class="primary">Turn on codes</button>
          </form>
        </div>
      )}
    </section>
  );
}

function PasskeysCard({ available, proof }: { available: boolean; proof: Proof }) {
  const [passkeys, reload] = useLoad(
    () => available ? listPasskeys() : Promise.resolve(null),
    [available],
  );
  const [name, setName] = useState("");
  if (!available) {
    return (
      <section class="card" aria-labelledby="passkeys-heading">
        <h2 id="passkeys-heading">Passkeys</h2>
        <p>Passkeys are turned off on this server.</p>
      </section>
    );
  }
  const add = async (event: Event) => {
    event.preventDefault();
    const button = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    if (button) button.disabled = true;
    const ok = await withToast(`Passkey “${name.trim()}” added.`, async () => {
      try {
        await addPasskey(name.trim(), proof);
      } catch (e) {
        throw promptFailure(e);
      }
    });
    if (button) button.disabled = false;
    if (ok) {
      setName("");
      reload();
    }
  };
  const remove = async (passkey: Passkey) => {
    const sure = await confirmAction({
      title: "Remove this passkey?",
      message: `“${passkey.name}” will no longer sign you in.`,
      confirm: "Remove",
      deletion: true,
    });
    if (sure && await withToast("Passkey removed.", () => removePasskey(passkey.id, proof))) {
      reload();
    }
  };
  return (
    <section class="card" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      {passkeys && passkeys.length === 0 && <p>No passkeys yet.</p>}
      {passkeys && passkeys.length > 0 && (
        <ListTable
          labelledBy="passkeys-heading"
          columns={["Name", "Added", "Last used"]}
          rows={passkeys}
          cells={(
            p,
          ) => [p.name, formatDate(p.createdAt), p.lastUsed ? formatDate(p.lastUsed) : "never"]}
          actions={(p) => (
            <button
              type="button"
              class="danger"
              aria-label={`Remove passkey ${p.name}`}
              onClick={() => remove(p)}
            >
              Remove
            </button>
          )}
        />
      )}
      <form class="inline" onSubmit={add} aria-label="Add a passkey">
        <TextField
          label="Name for a new passkey"
          type="text"
          placeholder="e.g. work laptop"
          required
          value={name}
          onValue={setName}
        />
        <button type="submit">Add a passkey</button>
      </form>
    </section>
  );
}

const PROVIDER_NAMES: Record<OauthProvider, string> = {
  DISCORD: "Discord",
  GITHUB: "GitHub",
  GOOGLE: "Google",
  OIDC: "OpenID Connect",
};

/**
 * The linked accounts: unlink one; link a provider that is on and not linked
 * yet (a POST that answers the provider's address to go to).
 */
function LinkedAccountsCard({ proof }: { proof: Proof }) {
  const [links, setLinks] = useState<OauthLink[] | null>(null);
  const [enabled, setEnabled] = useState<Record<string, boolean>>({});
  useEffect(() => {
    listOauthLinks().then(setLinks, () => {});
    oauthProviders().then(setEnabled, () => {});
  }, []);
  if (!links) return null;
  const linkable = (Object.keys(PROVIDER_NAMES) as OauthProvider[])
    .filter((p) => enabled[p.toLowerCase()] && !links.some((l) => l.provider === p));
  if (links.length === 0 && linkable.length === 0) return null;
  const remove = (provider: OauthProvider) =>
    withToast("Unlinked.", async () => setLinks(await unlinkOauth(provider, proof)));
  const link = (provider: OauthProvider) =>
    withToast("On to the provider…", async () => location.assign(await linkOauth(provider, proof)));
  return (
    <section class="card" aria-labelledby="oauth-title">
      <h2 id="oauth-title">Linked accounts</h2>
      {links.length > 0 && (
        <ListTable
          labelledBy="oauth-title"
          columns={["Provider", "Account"]}
          rows={links}
          cells={(l) => [PROVIDER_NAMES[l.provider], l.username]}
          actions={(l) => (
            <button
              type="button"
              class="danger"
              aria-label={`Unlink ${PROVIDER_NAMES[l.provider]}`}
              onClick={() => remove(l.provider)}
            >
              Unlink
            </button>
          )}
        />
      )}
      <div class="button-row">
        {linkable.map((p) => (
          <button key={p} type="button" onClick={() => link(p)}>
            Link {PROVIDER_NAMES[p]}
          </button>
        ))}
      </div>
    </section>
  );
}

function SessionsCard() {
  const [sessions, setSessions] = useState<Sessions | null>(null);
  useEffect(() => {
    listSessions().then(setSessions, () => {});
  }, []);
  const revoke = async (which: { sessionId: string } | { all: true }) => {
    await withToast("Signed out.", async () => setSessions(await revokeSessions(which)));
  };
  if (!sessions) return null;
  const rows = [
    ...(sessions.current ? [{ ...sessions.current, current: true }] : []),
    ...sessions.other.map((s) => ({ ...s, current: false })),
  ];
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <ListTable
        labelledBy="sessions-title"
        columns={["Client", "Device", "Signed in", "Last seen"]}
        rows={rows}
        cells={(s) => [s.client, s.device, formatDate(s.createdAt), formatDate(s.lastSeenAt)]}
        actions={(s) =>
          s.current ? <span class="muted">This session</span> : (
            <button
              type="button"
              class="danger"
              aria-label={`Sign out ${s.client} on ${s.device}`}
              onClick={() => revoke({ sessionId: s.id })}
            >
              Sign out
            </button>
          )}
      />
      {sessions.other.length > 0 && (
        <button
          type="button"
          class="danger"
          onClick={() => revoke({ all: true })}
        >
          Sign out all other sessions
        </button>
      )}
    </section>
  );
}

/** The security page. */
export function SecurityPage({ config }: { config: PageConfig }) {
  const hasPassword = config.user?.hasPassword ?? true;
  const [current, setCurrent] = useState("");
  const [mfa] = useLoad(mfaAvailability);
  const [me, reloadMe] = useLoad(getMe);
  const proof: Proof = current ? { currentPassword: current } : {};
  return (
    <>
      <h1>Security</h1>
      {hasPassword && (
        <section class="card stack" aria-labelledby="proof-title">
          <h2 id="proof-title">Confirm it is you</h2>
          <label for="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autoComplete="current-password"
            aria-describedby="current-password-hint"
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
          <p id="current-password-hint" class="muted">
            Changing the password, turning codes on, adding or removing a passkey and linking or
            unlinking an account ask for it, unless you signed in with it moments ago. A current
            code alone turns codes off.
          </p>
        </section>
      )}
      <PasswordCard proof={proof} />
      {mfa && me && (
        <TotpCard available={mfa.totp} enabled={me.totp} proof={proof} onChange={reloadMe} />
      )}
      {mfa && <PasskeysCard available={mfa.passkeys} proof={proof} />}
      <LinkedAccountsCard proof={proof} />
      <SessionsCard />
    </>
  );
}
