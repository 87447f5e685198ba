/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * Scoped API keys: the account's card (the list with name, scopes and dates,
 * a form that makes one with a scope picker and a validity, the new key shown
 * once with a copy button, revoking one or all, each confirmed), and the same
 * list of another user's keys for an administrator ({@link KeyList}).
 */
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import {
  type ApiKey,
  createKey,
  type KeyScope,
  keyScopes,
  listKeys,
  type NewApiKey,
  revokeAllKeys,
  revokeKey,
  type ScopeName,
} from "../api/keys.ts";
import { formatDate } from "../format.ts";
import { CopyButton } from "./copy_button.tsx";
import { SelectField, TextField } from "./field.tsx";
import { confirmAction, toast, withToast } from "./feedback.tsx";

/** Bumped whenever a key is made elsewhere on the page (the uploader configurations). */
export const keysChanged = signal(0);

/** Makes a key; the list shows it at once. */
export async function makeApiKey(
  name: string,
  scopes: ScopeName[],
  expiresAt: string | null = null,
): Promise<NewApiKey> {
  const key = await createKey(name, scopes, expiresAt);
  keysChanged.value++;
  return key;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The validity choices: days from now, never, or a date picked. */
const VALIDITY = [
  ["never", "Never expires"],
  ["30", "30 days"],
  ["90", "90 days"],
  ["365", "1 year"],
  ["custom", "Until a date"],
] as const;

/** `YYYY-MM-DD` of the day after today, the earliest date a key may run to. */
function tomorrow(): string {
  const day = new Date(Date.now() + DAY_MS);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/** The expiry a validity choice means (the end of a picked day, local time); `null`: never. */
function expiryOf(validity: string, date: string): string | null {
  if (validity === "never") return null;
  if (validity === "custom") return new Date(`${date}T23:59:59`).toISOString();
  return new Date(Date.now() + Number(validity) * DAY_MS).toISOString();
}

/** The new key, shown this once with a copy button. */
function NewKeyNotice({ made, onDone }: { made: NewApiKey; onDone: () => void }) {
  return (
    <div role="status" aria-labelledby="new-key-title">
      <p id="new-key-title" class="ok">
        The key “{made.name}” was made. Copy it now: it is not shown again.
      </p>
      <div class="upload-link">
        <input type="text" readOnly value={made.key} aria-label="New API key" />
        <CopyButton text={made.key} label="Copy the new API key" />
      </div>
      <button type="button" onClick={onDone}>Done</button>
    </div>
  );
}

/** The form that makes a key. */
function NewKeyForm({ onMade }: { onMade: (key: NewApiKey) => void }) {
  const [scopes, setScopes] = useState<KeyScope[]>([]);
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<ScopeName[]>([]);
  const [validity, setValidity] = useState("never");
  const [date, setDate] = useState("");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    keyScopes().then(setScopes);
  }, []);
  const toggle = (scope: ScopeName, on: boolean) =>
    setChosen(on ? [...chosen, scope] : chosen.filter((s) => s !== scope));
  const submit = async (event: Event) => {
    event.preventDefault();
    if (chosen.length === 0) return setError("Choose at least one scope.");
    if (validity === "custom" && !date) return setError("Choose the date it expires.");
    try {
      onMade(await makeApiKey(name, chosen, expiryOf(validity, date)));
      setName("");
      setChosen([]);
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="new-key-heading">
      <h3 id="new-key-heading">New key</h3>
      <TextField label="Key name" type="text" required value={name} onValue={setName} />
      <fieldset>
        <legend>Scopes</legend>
        {scopes.map((s) => (
          <label key={s.name} class="check" title={s.allows}>
            <input
              type="checkbox"
              checked={chosen.includes(s.name)}
              onChange={(e) => toggle(s.name, e.currentTarget.checked)}
            />
            <code>{s.name}</code> <span class="muted">{s.allows}</span>
          </label>
        ))}
      </fieldset>
      <SelectField label="Validity" value={validity} onValue={setValidity} options={VALIDITY} />
      {validity === "custom" && (
        <label class="field">
          <span>Expires on</span>
          <input
            type="date"
            min={tomorrow()}
            value={date}
            onInput={(e) => setDate(e.currentTarget.value)}
          />
        </label>
      )}
      {error && <p class="error" role="alert">{error}</p>}
      <button type="submit" class="primary">Make the key</button>
    </form>
  );
}

/** When a key stops working, as its row shows it. */
function expiry(key: ApiKey): string {
  if (!key.expiresAt) return "never";
  const date = formatDate(key.expiresAt);
  return Date.parse(key.expiresAt) <= Date.now() ? `expired ${date}` : date;
}

/**
 * The keys of `userId` (an administrator's view of `owner`'s keys), or the
 * caller's own: a table with a Revoke button each, and "Revoke all keys".
 */
export function KeyList({ userId, owner }: { userId?: string; owner?: string }) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const changed = keysChanged.value;
  const whose = owner ? `${owner}'s` : "your";
  const reload = () => listKeys(userId).then(setKeys, (e: Error) => setError(e.message));
  useEffect(() => {
    reload();
  }, [changed, userId]);
  const revoke = async (key: ApiKey) => {
    const sure = await confirmAction({
      title: "Revoke this key?",
      message: `Programs using the key “${key.name}” stop working at once.`,
      confirm: "Revoke",
      deletion: true,
    });
    if (!sure) return;
    try {
      await revokeKey(key, userId);
      toast(`Revoked the key “${key.name}”.`);
      await reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const revokeAll = async () => {
    const sure = await confirmAction({
      title: `Revoke every one of ${whose} API keys?`,
      message: "Programs using them stop working at once.",
      confirm: "Revoke all",
      deletion: true,
    });
    if (!sure) return;
    if (await withToast("Revoked every API key.", () => revokeAllKeys(userId))) await reload();
  };
  return (
    <>
      {keys && keys.length > 0 && (
        <table aria-label={owner ? `API keys of ${owner}` : "API keys"}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Made</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>{k.scopes.join(", ")}</td>
                <td>{formatDate(k.createdAt)}</td>
                <td>{k.lastUsedAt ? formatDate(k.lastUsedAt) : "never"}</td>
                <td>{expiry(k)}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revoke ${k.name}`}
                    onClick={() => revoke(k)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {keys?.length === 0 && <p class="muted">No API keys{owner ? "" : " yet"}.</p>}
      {error && <p class="error" role="alert">{error}</p>}
      {keys && keys.length > 1 && (
        <button type="button" class="danger" onClick={revokeAll}>Revoke all keys</button>
      )}
    </>
  );
}

/** The API keys card of the account page. */
export function ApiKeysCard() {
  const [made, setMade] = useState<NewApiKey | null>(null);
  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="muted">
        A key does only what its scopes allow and can expire; revoke it without touching your token
        or other programs. Send it as the whole <code>Authorization</code> header.
      </p>
      {made && <NewKeyNotice made={made} onDone={() => setMade(null)} />}
      <KeyList />
      <NewKeyForm onMade={setMade} />
    </section>
  );
}
