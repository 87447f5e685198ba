/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/settings`: the account: the username, the avatar, the
 * dashboard's theme and "warn on deletion", the file pages and embeds, the
 * API token (reveal, copy, regenerate), scoped API keys (make, revoke),
 * uploader configurations for ShareX, iShare, Flameshot and shell scripts
 * made for this user and server (each with a key of its own unless the token
 * is asked for), and the exports of all one's files as a zip (start,
 * download, delete). The ways to sign in are on the security page.
 */
import { useEffect, useState } from "preact/hooks";
import {
  deleteExport,
  exportLink,
  getMe,
  getToken,
  listExports,
  type Me,
  regenerateToken,
  startExport,
  updateMe,
  type UserExport,
} from "../api/account.ts";
import { useLoad } from "../hooks.ts";
import { formatBytes, formatDate } from "../format.ts";
import { AppearanceForm } from "../components/appearance_form.tsx";
import { AvatarForm } from "../components/avatar_form.tsx";
import { CopyButton } from "../components/copy_button.tsx";
import { EmbedForm } from "../components/embed_form.tsx";
import { uploadOptions, UploadOptionsForm } from "../components/options_form.tsx";
import type { PageConfig } from "../config.ts";
import {
  type ToolOptions,
  UPLOADER_TOOLS,
  uploaderConfig,
  type UploaderTool,
} from "../uploader_configs.ts";
import { SelectField, TextField } from "../components/field.tsx";
import { confirmAction, Notice, withToast } from "../components/feedback.tsx";
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
    getMe().then((user) => setUsername(user.username));
  }, []);
  const submit = (event: Event) => {
    event.preventDefault();
    attempt(setOutcome, "Username changed.", async () => {
      await updateMe({ username, currentPassword: current || undefined });
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
      setToken(await regenerateToken());
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
          <button type="button" onClick={() => getToken().then(setToken)}>
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
  ["script-files", "Shell script: files"],
  ["script-urls", "Shell script: URLs"],
];

/** Where the scripts put the link, as Zipline's generator offers it. */
const CLIPBOARDS: [NonNullable<ToolOptions["clipboard"]>, string][] = [
  ["x11", "Linux on X11 (xclip)"],
  ["wayland", "Linux on Wayland (wl-copy)"],
  ["macos", "macOS (pbcopy)"],
  ["echo", "Print it only (echo)"],
];

function UploaderConfigs({ config, site }: { config: PageConfig; site: string }) {
  const [useToken, setUseToken] = useState(false);
  const [platform, setPlatform] = useState<ToolOptions>({ clipboard: "x11" });
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
          ? await getToken()
          : (await makeApiKey(spec.keyName, [spec.scope])).key;
        const target = { origin: location.origin, token: credential, name: site };
        const slug = site.toLowerCase().replace(/[^a-z0-9]+/g, "-") || "ferry";
        download(
          `${slug}-${spec.file}`,
          spec.type,
          uploaderConfig(tool, target, uploadOptions.value, platform),
        );
      },
    );
  };
  return (
    <section class="card" aria-labelledby="configs-title">
      <h2 id="configs-title">Uploaders</h2>
      <p class="muted">
        Configurations for ShareX, iShare and Flameshot, and shell scripts that upload a file or
        shorten a URL, with the options below. Each gets a key of its own that may only upload (or
        shorten URLs), named after the tool.
      </p>
      <UploadOptionsForm config={config} />
      <div class="options-grid">
        <SelectField
          label="Scripts copy the link on"
          value={platform.clipboard ?? "x11"}
          onValue={(v) =>
            setPlatform({ ...platform, clipboard: v as NonNullable<ToolOptions["clipboard"]> })}
          options={CLIPBOARDS}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={platform.otherCompositor ?? false}
            disabled={platform.clipboard === "macos"}
            onChange={(e) => setPlatform({ ...platform, otherCompositor: e.currentTarget.checked })}
          />
          Flameshot on a Wayland compositor other than GNOME, KDE or Sway (Hyprland…)
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={platform.xshare ?? false}
            onChange={(e) => setPlatform({ ...platform, xshare: e.currentTarget.checked })}
          />
          ShareX files for the Xshare app on Android
        </label>
      </div>
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

function ExportCard() {
  const [exports, reload] = useLoad(listExports);
  const [outcome, setOutcome] = useState<Outcome>(null);
  useEffect(() => {
    if (!exports?.some((e) => !e.completed)) return;
    const timer = setTimeout(reload, 2000);
    return () => clearTimeout(timer);
  }, [exports]);
  const start = () =>
    attempt(setOutcome, "The export started; it appears below when ready.", async () => {
      await startExport();
      reload();
    });
  const remove = async (e: UserExport) => {
    const sure = await confirmAction({
      title: "Delete this export?",
      message: `The zip of ${e.files} files made ${formatDate(e.createdAt)} is removed.`,
      confirm: "Delete",
      deletion: true,
    });
    if (sure && await withToast("Export deleted.", () => deleteExport(e.id))) reload();
  };
  return (
    <section class="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <p class="muted">A zip of all your files.</p>
      <button type="button" onClick={start}>Export my files</button>
      <OutcomeLine outcome={outcome} />
      {exports && exports.length > 0 && (
        <ul class="plain">
          {exports.map((e) => (
            <li key={e.id}>
              {formatDate(e.createdAt)}: {e.files} files, {e.completed
                ? <a href={exportLink(e.id)}>download ({formatBytes(Number(e.size))})</a>
                : "in progress…"} {e.completed && (
                <button
                  type="button"
                  class="danger"
                  aria-label={`Delete the export of ${formatDate(e.createdAt)}`}
                  onClick={() => remove(e)}
                >
                  Delete
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The account page. */
export function AccountPage({ config, site }: { config: PageConfig; site: string }) {
  const [me, setMe] = useState<Me | null>(null);
  useEffect(() => {
    getMe().then(setMe);
  }, []);
  return (
    <>
      <h1>Account</h1>
      <p>
        <a href="/dashboard/security">
          Password, two-factor codes, passkeys, linked accounts and sessions
        </a>
      </p>
      <ProfileForm />
      {me && <AvatarForm current={me.avatar} />}
      <AppearanceForm />
      {me && <EmbedForm initial={me.view} username={me.username} />}
      <TokenCard />
      <ApiKeysCard />
      <UploaderConfigs config={config} site={site} />
      <ExportCard />
    </>
  );
}
