/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/users`: every user with what they store, searched and
 * sorted here; create, edit (name, password, role, quota) and delete them
 * through `/api/users`. The role rules of spec §4.1 come from the server in
 * the page's configuration: roles the caller may not give are disabled
 * choices, users it may not manage have their controls disabled, each with
 * the reason.
 */
import { KeyList } from "../components/api_keys.tsx";
import { useMemo, useState } from "preact/hooks";
import {
  type AdminUser,
  createUser,
  deleteUser,
  listUsers,
  updateUser,
  type UserChange,
  usersUsage,
  type UserUsage,
} from "../api/users.ts";
import type { PageConfig, Role } from "../config.ts";
import { ROLES } from "../config.ts";
import { formatBytes, formatDate } from "../format.ts";
import { useLoad } from "../hooks.ts";
import { Icon, IconButton } from "../icons.tsx";
import { Field, SelectField, TextField } from "../components/field.tsx";
import { dataUri } from "../components/avatar_form.tsx";
import { Notice } from "../components/feedback.tsx";

type QuotaType = "BY_BYTES" | "BY_FILES" | "NONE";

type User = AdminUser;

type Row = User & Omit<UserUsage, "id">;

const SORTS = [
  ["username", "Name"],
  ["role", "Role"],
  ["files", "Files"],
  ["storage", "Storage"],
  ["urls", "URLs"],
  ["createdAt", "Created"],
] as const;
type SortKey = typeof SORTS[number][0];

/** Why a role is not offered, for the note under a role choice. */
const ROLE_RULE = "An administrator gives roles up to its own (ADMIN: USER and ADMIN; " +
  "SUPERADMIN: any), and changes only users whose role is below its own.";

type Caller = NonNullable<PageConfig["user"]>;

function compare(a: Row, b: Row, key: SortKey): number {
  if (key === "role") return ROLES.indexOf(a.role) - ROLES.indexOf(b.role);
  const x = a[key];
  const y = b[key];
  return typeof x === "number" && typeof y === "number"
    ? x - y
    : String(x).localeCompare(String(y));
}

/** A role choice; roles the caller may not give are there, disabled, with the rule below. */
function RoleSelect(
  { value, caller, onChange, label }: {
    value: Role;
    caller: Caller;
    onChange: (role: Role) => void;
    label: string;
  },
) {
  return (
    <>
      <Field
        label={label}
        control={(id) => (
          <select
            id={id}
            value={value}
            onChange={(e) => onChange(e.currentTarget.value as Role)}
          >
            {ROLES.map((r) => (
              <option key={r} value={r} disabled={!caller.assigns.includes(r)}>
                {r}
                {!caller.assigns.includes(r) && " (not yours to give)"}
              </option>
            ))}
          </select>
        )}
      />
      {caller.assigns.length < ROLES.length && <p class="muted small">{ROLE_RULE}</p>}
    </>
  );
}

function Avatar({ user }: { user: User }) {
  return user.avatar
    ? <img class="avatar-small" src={user.avatar} alt="" />
    : <span class="avatar-small empty" aria-hidden="true">{user.username[0]?.toUpperCase()}</span>;
}

/** An image file chosen as an avatar, handed on as a data URI (`undefined` when none is chosen). */
function AvatarFile(
  { label, onChange }: { label: string; onChange: (avatar: string | undefined) => void },
) {
  return (
    <label class="field">
      <span>{label}</span>
      <input
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        onChange={async (e) => {
          const file = e.currentTarget.files?.[0];
          onChange(file ? await dataUri(file) : undefined);
        }}
      />
    </label>
  );
}

function CreateUser({ caller, onDone }: { caller: Caller; onDone: () => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("USER");
  const [avatar, setAvatar] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await createUser({ username, password, role, avatar });
      setUsername("");
      setPassword("");
      setError(null);
      onDone();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="card" aria-labelledby="new-user-title">
      <h2 id="new-user-title">New user</h2>
      <form class="admin-grid" onSubmit={submit} aria-label="New user">
        <TextField
          label="Username"
          type="text"
          required
          autocomplete="off"
          value={username}
          onValue={setUsername}
        />
        <TextField
          label="Password"
          type="password"
          required
          autocomplete="new-password"
          value={password}
          onValue={setPassword}
        />
        <div>
          <RoleSelect value={role} caller={caller} onChange={setRole} label="Role" />
        </div>
        <AvatarFile label="Avatar" onChange={setAvatar} />
        <div class="button-row">
          <button type="submit" class="primary">Create user</button>
        </div>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}

/**
 * The avatar of a user being edited: the one it has (or a new one chosen),
 * a file to replace it, and "Remove the avatar" when it has one.
 */
function AvatarChoice(
  { user, avatar, onChange }: {
    user: User;
    avatar: string | null | undefined;
    onChange: (avatar: string | null | undefined) => void;
  },
) {
  const shown = avatar === undefined ? user.avatar : avatar;
  return (
    <div class="avatar-choice">
      {shown
        ? <img class="avatar-small" src={shown} alt={`Avatar of ${user.username}`} />
        : (
          <span class="avatar-small empty" aria-hidden="true">
            {user.username[0]?.toUpperCase()}
          </span>
        )}
      <AvatarFile label="New avatar" onChange={onChange} />
      {user.avatar && (
        <label class="check">
          <input
            type="checkbox"
            checked={avatar === null}
            onChange={(e) => onChange(e.currentTarget.checked ? null : undefined)}
          />
          Remove the avatar
        </label>
      )}
    </div>
  );
}

/** The quota part of an edit: what changed, or `undefined`. */
function quotaBody(
  user: User,
  type: QuotaType,
  maxBytes: string,
  maxFiles: string,
  maxUrls: string,
) {
  const before = user.quota;
  const body = {
    filesType: type,
    maxBytes: type === "BY_BYTES" ? maxBytes.trim() : null,
    maxFiles: type === "BY_FILES" ? Number(maxFiles) : null,
    maxUrls: maxUrls.trim() ? Number(maxUrls) : null,
  };
  const same = (before?.filesQuota ?? "NONE") === type &&
    (before?.maxBytes ?? null) === body.maxBytes &&
    (before?.maxFiles ?? null) === body.maxFiles &&
    (before?.maxUrls ?? null) === body.maxUrls;
  return same ? undefined : body;
}

function EditUser(
  { user, caller, onDone }: { user: User; caller: Caller; onDone: (message?: string) => void },
) {
  const q = user.quota;
  const [username, setUsername] = useState(user.username);
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>(user.role);
  const [type, setType] = useState<QuotaType>(
    q && (q.maxBytes !== null || q.maxFiles !== null) ? q.filesQuota : "NONE",
  );
  const [maxBytes, setMaxBytes] = useState(q?.maxBytes ?? "");
  const [maxFiles, setMaxFiles] = useState(q?.maxFiles ? String(q.maxFiles) : "");
  const [maxUrls, setMaxUrls] = useState(q?.maxUrls ? String(q.maxUrls) : "");
  /** The new avatar (a data URI), `null` to remove it, `undefined` to leave it. */
  const [avatar, setAvatar] = useState<string | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const body: UserChange = {};
    if (username !== user.username) body.username = username;
    if (password) body.password = password;
    if (role !== user.role) body.role = role;
    if (avatar !== undefined) body.avatar = avatar;
    const quota = quotaBody(user, type, maxBytes, maxFiles, maxUrls);
    if (quota) body.quota = quota;
    if (Object.keys(body).length === 0) return onDone("Nothing changed.");
    try {
      await updateUser(user.id, body);
      onDone(`${username} saved.`);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="card" aria-labelledby="edit-user-title">
      <h2 id="edit-user-title">Edit {user.username}</h2>
      <form class="admin-grid" onSubmit={submit} aria-label={`Edit ${user.username}`}>
        <TextField
          label="New username"
          type="text"
          required
          value={username}
          onValue={setUsername}
        />
        <TextField
          label="New password"
          type="password"
          autocomplete="new-password"
          placeholder="unchanged"
          value={password}
          onValue={setPassword}
        />
        <div>
          <RoleSelect value={role} caller={caller} onChange={setRole} label="New role" />
        </div>
        <SelectField
          label="Quota"
          value={type}
          onValue={(v) => setType(v as QuotaType)}
          options={[["NONE", "No file limit"], ["BY_BYTES", "By size"], [
            "BY_FILES",
            "By number of files",
          ]]}
        />
        {type === "BY_BYTES" && (
          <TextField
            label="Max storage"
            type="text"
            required
            placeholder="50gb"
            value={maxBytes}
            onValue={setMaxBytes}
          />
        )}
        {type === "BY_FILES" && (
          <TextField
            label="Max files"
            type="number"
            required
            min={1}
            value={maxFiles}
            onValue={setMaxFiles}
          />
        )}
        <TextField
          label="Max URLs"
          type="number"
          min={1}
          placeholder="no limit"
          value={maxUrls}
          onValue={setMaxUrls}
        />
        <AvatarChoice user={user} avatar={avatar} onChange={setAvatar} />
        <div class="button-row">
          <button type="submit" class="primary">Save</button>
          <button type="button" onClick={() => onDone()}>Cancel</button>
        </div>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      <h3 id="user-keys-title">API keys</h3>
      <p class="muted">
        Keys {user.username}{" "}
        made for programs. Revoking one stops it at once; a password change does not.
      </p>
      <KeyList userId={user.id} owner={user.username} />
    </section>
  );
}

function DeleteUser({ user, onDone }: { user: User; onDone: (message?: string) => void }) {
  const [content, setContent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await deleteUser(user.id, content);
      onDone(`${user.username} deleted.`);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="card" aria-labelledby="delete-user-title">
      <h2 id="delete-user-title">Delete {user.username}</h2>
      <form onSubmit={submit} aria-label={`Delete ${user.username}`}>
        <p>The account goes for good. Its files and URLs stay, without an owner, unless:</p>
        <label class="check">
          <input
            type="checkbox"
            checked={content}
            onChange={(e) => setContent(e.currentTarget.checked)}
          />
          Also delete their files and URLs
        </label>
        <div class="button-row">
          <button type="submit" class="danger">Delete {user.username}</button>
          <button type="button" onClick={() => onDone()}>Cancel</button>
        </div>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}

/** Why the caller may not change `user`, or `null` when it may. */
function refusal(user: User, caller: Caller): string | null {
  if (user.id === caller.id) return "This is you: change your account on the Account page";
  if (!caller.manages.includes(user.role)) {
    return `You cannot change a ${user.role}: only users below your role`;
  }
  return null;
}

function UserRow(
  { user, caller, onEdit, onDelete }: {
    user: Row;
    caller: Caller;
    onEdit: () => void;
    onDelete: () => void;
  },
) {
  const why = refusal(user, caller);
  const files = `/dashboard/files?${new URLSearchParams({
    user: user.id,
    username: user.username,
  })}`;
  const quota = user.quota?.maxBytes ??
    (user.quota?.maxFiles ? `${user.quota.maxFiles} files` : "");
  return (
    <tr>
      <td>
        <div class="user-name">
          <Avatar user={user} />
          <span>
            <strong>{user.username}</strong>
            <span class="muted phone-only">{user.role}</span>
          </span>
        </div>
      </td>
      <td>{user.role}</td>
      <td>{user.files}</td>
      <td>
        {formatBytes(user.storage)}
        {quota && <span class="muted">{` of ${quota}`}</span>}
      </td>
      <td>{user.urls}</td>
      <td>{formatDate(user.createdAt)}</td>
      <td>
        <div class="actions">
          {why === null
            ? (
              <a
                class="icon-button"
                href={files}
                title="Files"
                aria-label={`Files of ${user.username}`}
              >
                <Icon name="file" />
              </a>
            )
            : (
              <IconButton
                icon="file"
                disabled
                title={why}
                label={`Files of ${user.username}`}
              />
            )}
          <IconButton
            icon="edit"
            disabled={why !== null}
            title={why ?? "Edit"}
            label={`Edit ${user.username}`}
            onClick={onEdit}
          />
          <IconButton
            icon="trash"
            danger
            disabled={why !== null}
            title={why ?? "Delete"}
            label={`Delete ${user.username}`}
            onClick={onDelete}
          />
        </div>
      </td>
    </tr>
  );
}

/** The user administration page. */
export function AdminUsersPage({ config }: { config: PageConfig }) {
  const caller = config.user!;
  const [users, reloadUsers, usersError] = useLoad(listUsers);
  const [usage, reloadUsage] = useLoad(usersUsage);
  const [search, setSearch] = useState("");
  const [sortBy, setSortBy] = useState<SortKey>("createdAt");
  const [order, setOrder] = useState<"asc" | "desc">("asc");
  const [action, setAction] = useState<{ kind: "edit" | "delete"; user: User } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const notice = useMemo(() => message ? { ok: true, text: message } : null, [message]);
  const reload = (text?: string) => {
    setAction(null);
    setMessage(text ?? null);
    reloadUsers();
    reloadUsage();
  };
  const counts = new Map((usage ?? []).map((u) => [u.id, u]));
  const rows: Row[] = (users ?? [])
    .filter((u) => u.username.toLowerCase().includes(search.trim().toLowerCase()))
    .map((u) => ({ files: 0, storage: 0, urls: 0, ...u, ...counts.get(u.id), id: u.id }))
    .sort((a, b) => compare(a, b, sortBy) * (order === "asc" ? 1 : -1));
  return (
    <>
      <h1>Users</h1>
      <CreateUser caller={caller} onDone={() => reload("User created.")} />
      {action?.kind === "edit" && (
        <EditUser key={action.user.id} user={action.user} caller={caller} onDone={reload} />
      )}
      {action?.kind === "delete" && (
        <DeleteUser key={action.user.id} user={action.user} onDone={reload} />
      )}
      <Notice message={notice} />
      <section class="card" aria-labelledby="users-title">
        <h2 id="users-title">All users</h2>
        <div class="toolbar" role="search">
          <label class="field grow">
            <span>Search users</span>
            <input
              type="search"
              value={search}
              onInput={(e) => setSearch(e.currentTarget.value)}
            />
          </label>
          <SelectField
            label="Sort by"
            value={sortBy}
            onValue={(v) => setSortBy(v as SortKey)}
            options={SORTS}
          />
          <SelectField
            label="Order"
            value={order}
            onValue={(v) => setOrder(v as "asc" | "desc")}
            options={[["asc", "Ascending"], ["desc", "Descending"]]}
          />
        </div>
        {usersError && <p class="error" role="alert">{usersError}</p>}
        <div class="table-scroll">
          <table class="user-table" aria-label="Users">
            <thead>
              <tr>
                <th>User</th>
                <th>Role</th>
                <th>Files</th>
                <th>Storage</th>
                <th>URLs</th>
                <th>Created</th>
                <th>
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((u) => (
                <UserRow
                  key={u.id}
                  user={u}
                  caller={caller}
                  onEdit={() => setAction({ kind: "edit", user: u })}
                  onDelete={() => setAction({ kind: "delete", user: u })}
                />
              ))}
            </tbody>
          </table>
        </div>
        {users && rows.length === 0 && <p class="muted">No user matches.</p>}
      </section>
    </>
  );
}
