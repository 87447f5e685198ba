/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/requests`: the caller's upload requests — links that let anyone
 * send it files. Lists each with its counts (files, bytes, limits, expiry),
 * its link (copy, QR) and its files (the request's folder); makes one with
 * every option, edits it, and closes it.
 */
import { useState } from "preact/hooks";
import {
  changeRequest,
  closeRequest,
  createRequest,
  listRequests,
  type NewRequest,
  type RequestChange,
  type UploadRequest,
} from "../api/requests.ts";
import { type Folder, listFolders } from "../api/files.ts";
import { useLoad } from "../hooks.ts";
import { formatBytes, formatDate } from "../format.ts";
import { Icon, IconButton } from "../icons.tsx";
import { LinkTools } from "../components/link_tools.tsx";
import { confirmAction, withToast } from "../components/feedback.tsx";
import { Field } from "../components/field.tsx";

const MB = 1024 * 1024;

/** The form's fields, as typed. */
interface Draft {
  name: string;
  message: string;
  folderId: string;
  maxFiles: string;
  maxMb: string;
  maxFileMb: string;
  expiresAt: string;
  password: string;
  types: string;
}

const EMPTY: Draft = {
  name: "",
  message: "",
  folderId: "",
  maxFiles: "",
  maxMb: "",
  maxFileMb: "",
  expiresAt: "",
  password: "",
  types: "",
};

/** The draft of an existing request (its password left blank: unchanged). */
function draftOf(r: UploadRequest): Draft {
  const mb = (n: number | null) => n === null ? "" : String(Math.round((n / MB) * 100) / 100);
  const local = r.expiresAt ? new Date(r.expiresAt) : null;
  return {
    name: r.name,
    message: r.message ?? "",
    folderId: r.folderId ?? "",
    maxFiles: r.maxFiles === null ? "" : String(r.maxFiles),
    maxMb: mb(r.maxBytes),
    maxFileMb: mb(r.maxFileSize),
    expiresAt: local
      ? new Date(local.getTime() - local.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
      : "",
    password: "",
    types: r.allowedTypes.join(", "),
  };
}

/** The API body of `d`; `editing` leaves an empty password as it is. */
function bodyOf(d: Draft, editing: boolean): NewRequest & RequestChange {
  const number = (s: string) => s.trim() === "" ? null : Number(s);
  const bytes = (s: string) => s.trim() === "" ? null : Math.round(Number(s) * MB);
  return {
    name: d.name,
    message: d.message.trim() === "" ? null : d.message,
    ...(d.folderId ? { folderId: d.folderId } : {}),
    maxFiles: number(d.maxFiles),
    maxBytes: bytes(d.maxMb),
    maxFileSize: bytes(d.maxFileMb),
    expiresAt: d.expiresAt ? new Date(d.expiresAt).toISOString() : null,
    ...(editing && d.password === "" ? {} : { password: d.password || null }),
    allowedTypes: d.types.split(",").map((t) => t.trim()).filter((t) => t !== ""),
  };
}

/** The form that makes a request or changes `editing`. */
function RequestForm(
  { editing, folders, onDone }: {
    editing?: UploadRequest;
    folders: Folder[];
    onDone: () => void;
  },
) {
  const [d, setD] = useState<Draft>(editing ? draftOf(editing) : EMPTY);
  const [error, setError] = useState<string | null>(null);
  const set = (key: keyof Draft) => (e: Event) =>
    setD({ ...d, [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      if (editing) await changeRequest(editing.id, bodyOf(d, true));
      else await createRequest(bodyOf(d, false));
      setError(null);
      if (!editing) setD(EMPTY);
      onDone();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const label = editing ? `Edit ${editing.name}` : "New upload request";
  return (
    <form class="request-form" onSubmit={submit} aria-label={label}>
      <div class="form-grid">
        <label class="field">
          <span>Name</span>
          <input type="text" required maxLength={100} value={d.name} onInput={set("name")} />
        </label>
        <Field
          label="Folder"
          control={(id) => (
            <select id={id} value={d.folderId} onChange={set("folderId")}>
              <option value="">
                {editing ? "Keep its folder" : "A new folder named after it"}
              </option>
              {folders.map((f) => <option key={f.id} value={f.id}>{f.name}</option>)}
            </select>
          )}
        />
        <label class="field">
          <span>Most files</span>
          <input type="number" min={1} value={d.maxFiles} onInput={set("maxFiles")} />
        </label>
        <label class="field">
          <span>Most in all (MB)</span>
          <input type="number" min={0.01} step="any" value={d.maxMb} onInput={set("maxMb")} />
        </label>
        <label class="field">
          <span>Largest file (MB)</span>
          <input
            type="number"
            min={0.01}
            step="any"
            value={d.maxFileMb}
            onInput={set("maxFileMb")}
          />
        </label>
        <label class="field">
          <span>Open until</span>
          <input type="datetime-local" value={d.expiresAt} onInput={set("expiresAt")} />
        </label>
        <label class="field">
          <span>{editing?.password ? "New password (blank: keep)" : "Password"}</span>
          <input
            type="password"
            autocomplete="new-password"
            value={d.password}
            onInput={set("password")}
          />
        </label>
        <label class="field">
          <span>Types (image/*, .pdf, …)</span>
          <input type="text" value={d.types} onInput={set("types")} placeholder="any" />
        </label>
      </div>
      <label class="field">
        <span>Message to uploaders</span>
        <textarea rows={2} maxLength={2000} value={d.message} onInput={set("message")} />
      </label>
      {error && <p class="error" role="alert">{error}</p>}
      <p class="page-actions">
        <button type="submit" class="primary">{editing ? "Save" : "Create request"}</button>
        {editing && <button type="button" onClick={onDone}>Cancel</button>}
      </p>
    </form>
  );
}

/** `count` of `max` (or of no limit), in words. */
function ofLimit(count: string, max: string | null): string {
  return max === null ? count : `${count} of ${max}`;
}

/** One request: its counts, link, files and actions. */
function RequestRow(
  { request: r, folders, onChange }: {
    request: UploadRequest;
    folders: Folder[];
    onChange: () => void;
  },
) {
  const [editing, setEditing] = useState(false);
  const close = async () => {
    const sure = await confirmAction({
      title: "Close this request?",
      message: `The link of ${r.name} stops working. The files it received stay yours.`,
      confirm: "Close",
      deletion: true,
    });
    if (
      sure &&
      await withToast(`Closed ${r.name}.`, () => closeRequest(r.id))
    ) onChange();
  };
  const files = ofLimit(
    `${r.files} ${r.files === 1 ? "file" : "files"}`,
    r.maxFiles?.toString() ?? null,
  );
  const bytes = ofLimit(formatBytes(r.bytes), r.maxBytes === null ? null : formatBytes(r.maxBytes));
  return (
    <li class="card request-row">
      <div class="request-row-head">
        <h3>
          {r.password && <Icon name="lock" size={16} />} {r.name}
        </h3>
        <span class={r.expired ? "badge danger" : "badge"}>
          {r.expired ? "Expired" : r.expiresAt ? `Open until ${formatDate(r.expiresAt)}` : "Open"}
        </span>
        <IconButton
          icon="edit"
          label={`Edit ${r.name}`}
          title="Edit"
          onClick={() => setEditing(!editing)}
        />
        <IconButton icon="trash" danger label={`Close ${r.name}`} title="Close" onClick={close} />
      </div>
      <p class="muted">
        {files} · {bytes}
        {r.maxFileSize !== null && ` · at most ${formatBytes(r.maxFileSize)} a file`}
        {r.allowedTypes.length > 0 && ` · ${r.allowedTypes.join(", ")}`}
      </p>
      {r.message && <p class="request-message">{r.message}</p>}
      <LinkTools href={r.url} name={r.name} />
      {r.folderId && (
        <p>
          <a href={`/dashboard/files?folder=${encodeURIComponent(r.folderId)}`}>
            <Icon name="folder" size={16} /> Its files
          </a>
        </p>
      )}
      {editing && (
        <RequestForm
          editing={r}
          folders={folders}
          onDone={() => {
            setEditing(false);
            onChange();
          }}
        />
      )}
    </li>
  );
}

/** The page. */
export function RequestsPage() {
  const [requests, reload, error] = useLoad(listRequests);
  const [folders] = useLoad(listFolders);
  return (
    <>
      <h1>Upload requests</h1>
      <p class="muted">
        Ask anyone for files: share a request's link, and whoever holds it can upload into your
        folder without an account, within the limits you set.
      </p>
      <section class="card" aria-labelledby="new-request-title">
        <h2 id="new-request-title">New request</h2>
        <RequestForm folders={folders ?? []} onDone={reload} />
      </section>
      {error && <p class="error" role="alert">{error}</p>}
      {requests && requests.length === 0 && <p class="muted">No upload requests yet.</p>}
      {requests && requests.length > 0 && (
        <ul class="request-list" aria-label="Upload requests">
          {requests.toReversed().map((r) => (
            <RequestRow key={r.id} request={r} folders={folders ?? []} onChange={reload} />
          ))}
        </ul>
      )}
    </>
  );
}
