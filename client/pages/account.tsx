/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/settings`: the account: username and password, the API token
 * (reveal, copy, regenerate), scoped API keys (make, revoke), the sessions
 * (revoke), uploader configurations for ShareX, iShare and Flameshot made for
 * this user and server (each with a key of its own unless the token is asked
 * for), the linked OAuth accounts (link, unlink: both with the current
 * password when the account has one), the dashboard's theme and "warn on
 * deletion", and the export of all one's files as a zip.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatBytes, formatDate } from "../format.ts";
import { AppearanceForm } from "../components/appearance_form.tsx";
import { AvatarForm } from "../components/avatar_form.tsx";
import { CopyButton } from "../components/copy_button.tsx";
import { EmbedForm, type ViewSettings } from "../components/embed_form.tsx";
import { uploadOptions, UploadOptionsForm } from "../components/options_form.tsx";
import type { PageConfig } from "../config.ts";
import { UPLOADER_TOOLS, uploaderConfig, type UploaderTool } from "../uploader_configs.ts";
import { TextField } from "../components/field.tsx";
import { confirmAction, Notice } from "../components/feedback.tsx";
import { ApiKeysCard, makeApiKey } from "../components/api_keys.tsx";

/** A form's outcome, shown beside it. */
type Outcome = { ok: boolean; text: string } | null;

/** The outcome, as a toast. */
function OutcomeLine({ outcome }: { outcome: Outcome }) {
  return <Notice message={outcome} />;
}

/** Runs `action`, then says `done` or the server's message. */
async function attempt(set: (o: Outcome) => void, done: string, action: () => Promise<unknown>) {
  try {
    await action();
    set({ ok: true, text: done });
  } catch (e) {
    set({ ok: false, text: (e as Error).message });
  }
}

function ProfileForm() {
  const [username, setUsername] = useState("");
  const [current, setCurrent] = useState("");
  const [outcome, setOutcome] = useState<Outcome>(null);
  useEffect(() => {
    api<{ user: { username: string } }>("GET", "/api/user").then(({ user }) =>
      setUsername(user.username)
    );
  }, []);
  const submit = (event: Event) => {
    event.preventDefault();
    attempt(setOutcome, "Username changed.", async () => {
      await api("PATCH", "/api/user", { username, currentPassword: current || undefined });
      setCurrent("");
      document.getElementById("signed-in-as")?.replaceChildren(username);
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="profile-title">
      <h2 id="profile-title">Username</h2>
      <TextField
        label="Username"
        type="text"
        autocomplete="username"
        value={username}
        onValue={setUsername}
      />
      <TextField
        label="Current password"
        type="password"
        autocomplete="current-password"
        value={current}
        onValue={setCurrent}
      />
      <OutcomeLine outcome={outcome} />
      <button type="submit" class="primary">Change username</button>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const [outcome, setOutcome] = useState<Outcome>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    if (next !== again) {
      setOutcome({ ok: false, text: "The new passwords differ." });
      return;
    }
    attempt(setOutcome, "Password changed; your other sessions were signed out.", async () => {
      await api("PATCH", "/api/user", { password: next, currentPassword: current || undefined });
      setCurrent("");
      setNext("");
      setAgain("");
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <TextField
        label="Current password"
        type="password"
        autocomplete="current-password"
        value={current}
        onValue={setCurrent}
      />
      <TextField
        label="New password"
        type="password"
        autocomplete="new-password"
        value={next}
        onValue={setNext}
      />
      <TextField
        label="New password again"
        type="password"
        autocomplete="new-password"
        value={again}
        onValue={setAgain}
      />
      <OutcomeLine outcome={outcome} />
      <button type="submit" class="primary">Change password</button>
    </form>
  );
}

/** The token, fetched when asked for (and shared with the uploader configurations). */
async function fetchToken(): Promise<string> {
  return (await api<{ token: string }>("GET", "/api/user/token")).token;
}

function TokenCard() {
  const [token, setToken] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const regenerate = async () => {
    const sure = await confirmAction({
      title: "Replace the token?",
      message: "Uploaders and scripts using the old one stop working.",
      confirm: "Regenerate token",
    });
    if (!sure) return;
    attempt(setOutcome, "A new token was made; the old one no longer works.", async () => {
      setToken((await api<{ token: string }>("PATCH", "/api/user/token")).token);
    });
  };
  return (
    <section class="card" aria-labelledby="token-title">
      <h2 id="token-title">API token</h2>
      <p class="muted">
        Send it as the whole <code>Authorization</code> header. Anyone holding it acts as you.
      </p>
      {token === null
        ? (
          <button type="button" onClick={() => fetchToken().then(setToken)}>
            Show token
          </button>
        )
        : (
          <div class="upload-link">
            <input type="text" readOnly value={token} aria-label="API token" />
            <CopyButton text={token} label="Copy the API token" />
          </div>
        )}
      <OutcomeLine outcome={outcome} />
      <button type="button" class="danger" onClick={regenerate}>Regenerate token</button>
    </section>
  );
}

interface Session {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  client: string;
  device: string;
}

function SessionsCard() {
  const [sessions, setSessions] = useState<{ current: Session | null; other: Session[] } | null>(
    null,
  );
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api<{ current: Session | null; other: Session[] }>("GET", "/api/user/sessions")
      .then(setSessions);
  }, [version]);
  const revoke = async (body: { sessionId: string } | { all: true }) => {
    await api("DELETE", "/api/user/sessions", body);
    setVersion((v) => v + 1);
  };
  if (!sessions) return null;
  const rows = [
    ...(sessions.current ? [{ ...sessions.current, current: true }] : []),
    ...sessions.other.map((s) => ({ ...s, current: false })),
  ];
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <table aria-labelledby="sessions-title">
        <thead>
          <tr>
            <th scope="col">Client</th>
            <th scope="col">Device</th>
            <th scope="col">Signed in</th>
            <th scope="col">Last seen</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id}>
              <td>{s.client}</td>
              <td>{s.device}</td>
              <td>{formatDate(s.createdAt)}</td>
              <td>{formatDate(s.lastSeenAt)}</td>
              <td>
                {s.current ? <span class="muted">This session</span> : (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Sign out ${s.client} on ${s.device}`}
                    onClick={() => revoke({ sessionId: s.id })}
                  >
                    Sign out
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
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

/** A linked OAuth account, as its owner's list shows it. */
interface OauthLink {
  id: string;
  provider: "DISCORD" | "GOOGLE" | "GITHUB" | "OIDC";
  username: string;
}

const PROVIDER_NAMES = {
  DISCORD: "Discord",
  GITHUB: "GitHub",
  GOOGLE: "Google",
  OIDC: "OpenID Connect",
} as const;

/**
 * The linked accounts: unlink one; link a provider that is on and not linked
 * yet. Both are credential changes: they send the current password typed in
 * the card when the account has one (a sign-in moments ago is proof
 * without it). Linking starts with a POST, which answers the provider's
 * address to go to.
 */
function LinkedAccountsCard({ hasPassword }: { hasPassword: boolean }) {
  const [links, setLinks] = useState<OauthLink[] | null>(null);
  const [enabled, setEnabled] = useState<Record<string, boolean>>({});
  const [current, setCurrent] = useState("");
  const [outcome, setOutcome] = useState<Outcome>(null);
  useEffect(() => {
    api<OauthLink[]>("GET", "/api/auth/oauth").then(setLinks);
    api<{ oauthEnabled: Record<string, boolean> }>("GET", "/api/server/public")
      .then((p) => setEnabled(p.oauthEnabled));
  }, []);
  if (!links) return null;
  const linkable = (Object.keys(PROVIDER_NAMES) as OauthLink["provider"][])
    .filter((p) => enabled[p.toLowerCase()] && !links.some((l) => l.provider === p));
  if (links.length === 0 && linkable.length === 0) return null;
  const proof = { currentPassword: current || undefined };
  const remove = (provider: string) =>
    attempt(setOutcome, "Unlinked.", async () => {
      setLinks(await api<OauthLink[]>("DELETE", "/api/auth/oauth", { provider, ...proof }));
    });
  const link = (provider: string) =>
    attempt(setOutcome, "On to the provider…", async () => {
      const { url } = await api<{ url: string }>(
        "POST",
        `/api/auth/oauth/${provider.toLowerCase()}/link`,
        proof,
      );
      location.assign(url);
    });
  return (
    <section class="card" aria-labelledby="oauth-title">
      <h2 id="oauth-title">Linked accounts</h2>
      {links.length > 0 && (
        <table aria-labelledby="oauth-title">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Account</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {links.map((l) => (
              <tr key={l.id}>
                <td>{PROVIDER_NAMES[l.provider]}</td>
                <td>{l.username}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Unlink ${PROVIDER_NAMES[l.provider]}`}
                    onClick={() => remove(l.provider)}
                  >
                    Unlink
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {hasPassword && (
        <TextField
          label="Current password"
          type="password"
          autocomplete="current-password"
          value={current}
          onValue={setCurrent}
        />
      )}
      <div class="button-row">
        {linkable.map((p) => (
          <button key={p} type="button" onClick={() => link(p)}>
            Link {PROVIDER_NAMES[p]}
          </button>
        ))}
      </div>
      <OutcomeLine outcome={outcome} />
    </section>
  );
}

/** Offers `text` as a file called `name` to download. */
function download(name: string, type: string, text: string): void {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/** The buttons that download each tool's configuration, in the order shown. */
const TOOL_BUTTONS: [UploaderTool, string][] = [
  ["sharex-files", "ShareX: files"],
  ["sharex-urls", "ShareX: URLs"],
  ["ishare", "iShare"],
  ["flameshot", "Flameshot script"],
];

function UploaderConfigs({ config, site }: { config: PageConfig; site: string }) {
  const [useToken, setUseToken] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const make = (tool: UploaderTool) => {
    const spec = UPLOADER_TOOLS[tool];
    attempt(
      setOutcome,
      useToken
        ? "Downloaded; it holds your token."
        : `Downloaded, with a new key “${spec.keyName}” that may only ${
          spec.scope === "urls:write" ? "shorten URLs" : "upload"
        }; revoke it under API keys.`,
      async () => {
        const credential = useToken
          ? await fetchToken()
          : (await makeApiKey(spec.keyName, [spec.scope])).key;
        const target = { origin: location.origin, token: credential, name: site };
        const slug = site.toLowerCase().replace(/[^a-z0-9]+/g, "-") || "ferry";
        download(
          `${slug}-${spec.file}`,
          spec.type,
          uploaderConfig(tool, target, uploadOptions.value),
        );
      },
    );
  };
  return (
    <section class="card" aria-labelledby="configs-title">
      <h2 id="configs-title">Uploaders</h2>
      <p class="muted">
        Configurations for ShareX, iShare and Flameshot with the options below. Each gets a key of
        its own that may only upload (or shorten URLs), named after the tool.
      </p>
      <UploadOptionsForm config={config} />
      <label class="check">
        <input
          type="checkbox"
          checked={useToken}
          onChange={(e) => setUseToken(e.currentTarget.checked)}
        />
        Use my token instead (it can do everything I can)
      </label>
      <div class="button-row">
        {TOOL_BUTTONS.map(([tool, label]) => (
          <button
            key={tool}
            type="button"
            onClick={() => make(tool)}
          >
            {label}
          </button>
        ))}
      </div>
      <OutcomeLine outcome={outcome} />
    </section>
  );
}

interface UserExport {
  id: string;
  createdAt: string;
  completed: boolean;
  files: number;
  size: string;
}

function ExportCard() {
  const [exports, setExports] = useState<UserExport[]>([]);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api<UserExport[]>("GET", "/api/user/export").then(setExports);
  }, [version]);
  useEffect(() => {
    if (!exports.some((e) => !e.completed)) return;
    const timer = setTimeout(() => setVersion((v) => v + 1), 2000);
    return () => clearTimeout(timer);
  }, [exports]);
  const start = () =>
    attempt(setOutcome, "The export started; it appears below when ready.", async () => {
      await api("POST", "/api/user/export");
      setVersion((v) => v + 1);
    });
  return (
    <section class="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <p class="muted">A zip of all your files.</p>
      <button type="button" onClick={start}>Export my files</button>
      <OutcomeLine outcome={outcome} />
      {exports.length > 0 && (
        <ul class="plain">
          {exports.map((e) => (
            <li key={e.id}>
              {formatDate(e.createdAt)}: {e.files} files, {e.completed
                ? (
                  <a href={`/api/user/export?id=${encodeURIComponent(e.id)}`}>
                    download ({formatBytes(Number(e.size))})
                  </a>
                )
                : "in progress…"}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

interface Me {
  username: string;
  avatar: string | null;
  view: ViewSettings;
}

/** The account page. */
export function AccountPage({ config, site }: { config: PageConfig; site: string }) {
  const [me, setMe] = useState<Me | null>(null);
  useEffect(() => {
    api<{ user: Me }>("GET", "/api/user").then(({ user }) => setMe(user));
  }, []);
  return (
    <>
      <h1>Account</h1>
      <p>
        <a href="/dashboard/security">Two-factor codes and passkeys</a>
      </p>
      <ProfileForm />
      <PasswordForm />
      {me && <AvatarForm current={me.avatar} />}
      <AppearanceForm />
      {me && <EmbedForm initial={me.view} username={me.username} />}
      <TokenCard />
      <ApiKeysCard />
      <SessionsCard />
      <LinkedAccountsCard hasPassword={config.user?.hasPassword ?? true} />
      <UploaderConfigs config={config} site={site} />
      <ExportCard />
    </>
  );
}
