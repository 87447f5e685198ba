/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/urls`: shorten a URL (vanity, password, max views, enabled, an
 * expiry, a destination per device, the query string forwarded), and the
 * caller's short URLs: search, sort, edit, enable or disable, copy, QR code,
 * visits (a dialog, loaded on demand), delete.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { type ApiUrl, deleteUrl, listUrls, shortenUrl, updateUrl } from "../api/urls.ts";
import type { PageConfig } from "../config.ts";
import { formatDate } from "../format.ts";
import { Icon, IconButton } from "../icons.tsx";
import { SelectField } from "../components/field.tsx";
import { LinkTools } from "../components/link_tools.tsx";
import { confirmAction, withToast } from "../components/feedback.tsx";
import { VisitsDialog } from "../components/visits_loader.tsx";

/** What the shorten and edit forms hold. */
interface UrlForm {
  destination: string;
  vanity: string;
  password: string;
  maxViews: string;
  enabled: boolean;
  /** Editing a URL that has a password: whether to remove it. */
  removePassword: boolean;
  /** When it stops redirecting, as a `datetime-local` input holds it; `""`: never. */
  expiresAt: string;
  /** Destinations by device class; `""`: the URL's own. */
  ios: string;
  android: string;
  desktop: string;
  forwardQuery: boolean;
}

/** The devices a URL may send elsewhere, with their labels. */
const DEVICES = [
  ["ios", "Link for iPhone and iPad"],
  ["android", "Link for Android"],
  ["desktop", "Link for desktops"],
] as const;

const EMPTY: UrlForm = {
  destination: "",
  vanity: "",
  password: "",
  maxViews: "",
  enabled: true,
  removePassword: false,
  expiresAt: "",
  ios: "",
  android: "",
  desktop: "",
  forwardQuery: false,
};

/** `iso` as a `datetime-local` input shows it, in the browser's time zone. */
function localInput(iso: string | null): string {
  if (!iso) return "";
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** The form's rules as the API takes them (`null` and `{}` clear them). */
function rulesOf(form: UrlForm) {
  const deviceDestinations: Partial<Record<typeof DEVICES[number][0], string>> = {};
  for (const [device] of DEVICES) {
    const destination = form[device].trim();
    if (destination) deviceDestinations[device] = destination;
  }
  return {
    expiresAt: form.expiresAt ? new Date(form.expiresAt).toISOString() : null,
    deviceDestinations,
    forwardQuery: form.forwardQuery,
  };
}

/** The form holding `url` as it is, for its edit. */
function formOf(url: ApiUrl): UrlForm {
  return {
    destination: url.destination,
    vanity: url.vanity ?? "",
    password: "",
    maxViews: url.maxViews === null ? "" : String(url.maxViews),
    enabled: url.enabled,
    removePassword: false,
    expiresAt: localInput(url.expiresAt),
    ios: url.deviceDestinations?.ios ?? "",
    android: url.deviceDestinations?.android ?? "",
    desktop: url.deviceDestinations?.desktop ?? "",
    forwardQuery: url.forwardQuery,
  };
}

/** Whether `url` has any redirect rule beyond its destination. */
const hasRules = (url: ApiUrl) => url.forwardQuery || url.deviceDestinations !== null;

const SORTS = {
  createdAt: (a: ApiUrl, b: ApiUrl) => b.createdAt.localeCompare(a.createdAt),
  views: (a: ApiUrl, b: ApiUrl) => b.views - a.views,
  destination: (a: ApiUrl, b: ApiUrl) => a.destination.localeCompare(b.destination),
};

/** The short link of `url` under the server's `urlsRoute`. */
function shortLink(url: ApiUrl, route: string): string {
  const prefix = route === "/" ? "" : route;
  return `${location.origin}${prefix}/${encodeURIComponent(url.vanity ?? url.code)}`;
}

/**
 * The fields of the shorten and edit forms; editing a URL with a password
 * (`locked`) offers to remove it instead of typing a new one.
 */
function UrlFields(
  { form, set, editing, locked = false }: {
    form: UrlForm;
    set: (f: UrlForm) => void;
    editing: boolean;
    locked?: boolean;
  },
) {
  return (
    <div class="options-grid">
      <label class="field grow">
        <span>Destination</span>
        <input
          type="url"
          required
          placeholder="https://example.com/a/long/page"
          value={form.destination}
          onInput={(e) => set({ ...form, destination: e.currentTarget.value })}
        />
      </label>
      <label class="field">
        <span>Vanity (optional)</span>
        <input
          type="text"
          value={form.vanity}
          onInput={(e) => set({ ...form, vanity: e.currentTarget.value })}
        />
      </label>
      <label class="field">
        <span>{editing ? "New password (optional)" : "Password (optional)"}</span>
        <input
          type="password"
          autoComplete="new-password"
          disabled={form.removePassword}
          value={form.password}
          onInput={(e) => set({ ...form, password: e.currentTarget.value })}
        />
      </label>
      {locked && (
        <label class="check">
          <input
            type="checkbox"
            checked={form.removePassword}
            onChange={(e) =>
              set({ ...form, removePassword: e.currentTarget.checked, password: "" })}
          />
          Remove the password
        </label>
      )}
      <label class="field">
        <span>Max views (optional)</span>
        <input
          type="number"
          min={editing ? 0 : 1}
          value={form.maxViews}
          onInput={(e) => set({ ...form, maxViews: e.currentTarget.value })}
        />
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={form.enabled}
          onChange={(e) => set({ ...form, enabled: e.currentTarget.checked })}
        />
        Enabled
      </label>
      <details class="url-rules grow" open={form.expiresAt !== "" || hasFormRules(form)}>
        <summary>Expiry and redirect rules</summary>
        <div class="options-grid">
          <label class="field">
            <span>Expires (optional)</span>
            <input
              type="datetime-local"
              value={form.expiresAt}
              onInput={(e) => set({ ...form, expiresAt: e.currentTarget.value })}
            />
          </label>
          {DEVICES.map(([device, label]) => (
            <label class="field grow" key={device}>
              <span>{label} (optional)</span>
              <input
                type="url"
                placeholder="https://"
                value={form[device]}
                onInput={(e) => set({ ...form, [device]: e.currentTarget.value })}
              />
            </label>
          ))}
          <label class="check">
            <input
              type="checkbox"
              checked={form.forwardQuery}
              onChange={(e) => set({ ...form, forwardQuery: e.currentTarget.checked })}
            />
            Forward the visit's query string (?utm_source=…)
          </label>
        </div>
      </details>
    </div>
  );
}

/** Whether the form gives a device destination or forwards the query. */
const hasFormRules = (form: UrlForm) =>
  form.forwardQuery || DEVICES.some(([device]) => form[device] !== "");

/** One row of the list, with its edit form when open. */
function UrlRow(
  { url, route, onChange }: { url: ApiUrl; route: string; onChange: () => void },
) {
  const [editing, setEditing] = useState<UrlForm | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [enabled, setEnabled] = useState(url.enabled);
  const [visits, setVisits] = useState(false);
  const name = url.vanity ?? url.code;
  const expired = url.expiresAt !== null && Date.parse(url.expiresAt) <= Date.now();
  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    try {
      await updateUrl(url.id, {
        destination: editing.destination,
        vanity: editing.vanity.trim() || null,
        maxViews: editing.maxViews === "" ? null : Number(editing.maxViews),
        enabled: editing.enabled,
        ...rulesOf(editing),
        ...(editing.removePassword
          ? { password: null }
          : editing.password
          ? { password: editing.password }
          : {}),
      });
      setEditing(null);
      setError(null);
      onChange();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const toggle = async () => {
    setEnabled(!enabled); // at once; the list reloads when the server has it
    try {
      await updateUrl(url.id, { enabled: !enabled });
      onChange();
    } catch (e) {
      setEnabled(enabled);
      setError((e as Error).message);
    }
  };
  const remove = async () => {
    const sure = await confirmAction({
      title: "Delete this short URL?",
      message: `${name} stops leading to ${url.destination}.`,
      confirm: "Delete",
      deletion: true,
    });
    if (
      sure && await withToast(`Deleted ${name}.`, () => deleteUrl(url.id))
    ) onChange();
  };
  return (
    <li class="card url-row">
      <div class="url-head">
        <strong>{name}</strong>
        {url.password && <Icon name="lock" size={14} />}
        {hasRules(url) && <span class="badge">rules</span>}
        {expired && <span class="badge danger">expired</span>}
        <span class="muted url-destination" title={url.destination}>→ {url.destination}</span>
      </div>
      <LinkTools href={shortLink(url, route)} name={name} />
      <div class="url-foot">
        <span class="muted">
          {url.views} {url.views === 1 ? "visit" : "visits"}
          {url.maxViews !== null && ` of ${url.maxViews}`} · {formatDate(url.createdAt)}
          {url.expiresAt !== null &&
            ` · ${expired ? "expired" : "expires"} ${formatDate(url.expiresAt)}`}
        </span>
        <label class="check">
          <input type="checkbox" checked={enabled} onChange={toggle} />
          Enabled
        </label>
        <button
          type="button"
          class="secondary visits-button"
          aria-label={`Visits of ${name}`}
          onClick={() => setVisits(true)}
        >
          <Icon name="visits" /> Visits
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label={`Edit ${name}`}
          title="Edit"
          aria-expanded={editing !== null}
          onClick={() => setEditing(editing ? null : formOf(url))}
        >
          <Icon name="edit" />
        </button>
        <IconButton
          icon="trash"
          danger
          label={`Delete ${name}`}
          title="Delete"
          onClick={remove}
        />
      </div>
      {visits && (
        <VisitsDialog
          of={{ kind: "url", id: url.id }}
          name={name}
          onClose={() => setVisits(false)}
        />
      )}
      {editing && (
        <form class="edit" onSubmit={save} aria-label={`Edit ${name}`}>
          <UrlFields form={editing} set={setEditing} editing locked={url.password} />
          {error && <p class="error" role="alert">{error}</p>}
          <button type="submit" class="primary">Save</button>
        </form>
      )}
    </li>
  );
}

/** The URLs page. */
export function UrlsPage({ config }: { config: PageConfig }) {
  const [urls, setUrls] = useState<ApiUrl[]>([]);
  const [form, setForm] = useState<UrlForm>(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ url: string; name: string } | null>(null);
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<keyof typeof SORTS>("createdAt");
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((v) => v + 1);

  useEffect(() => {
    listUrls().then(setUrls, (e: Error) => setError(e.message));
  }, [version]);

  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    const found = q === ""
      ? urls
      : urls.filter((u) =>
        [u.destination, u.vanity ?? "", u.code].some((f) => f.toLowerCase().includes(q))
      );
    return [...found].sort(SORTS[sort]);
  }, [urls, search, sort]);

  const shorten = async (event: Event) => {
    event.preventDefault();
    try {
      const { expiresAt, deviceDestinations, forwardQuery } = rulesOf(form);
      const body = await shortenUrl({
        destination: form.destination,
        enabled: form.enabled,
        password: form.password,
        maxViews: form.maxViews,
        ...(expiresAt ? { expiresAt } : {}),
        ...(Object.keys(deviceDestinations).length ? { deviceDestinations } : {}),
        ...(forwardQuery ? { forwardQuery } : {}),
        ...(form.vanity.trim() ? { vanity: form.vanity.trim() } : {}),
      });
      setCreated({ url: body.url, name: body.vanity ?? body.code });
      setForm(EMPTY);
      setError(null);
      reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <>
      <h1>URLs</h1>
      <form class="card" onSubmit={shorten} aria-label="Shorten a URL">
        <h2>Shorten a URL</h2>
        <UrlFields form={form} set={setForm} editing={false} />
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit" class="primary">Shorten</button>
        {created && <LinkTools href={created.url} name={created.name} />}
      </form>
      <div class="toolbar" role="search">
        <label class="field grow">
          <span>Search URLs</span>
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <SelectField
          label="Sort by"
          value={sort}
          onValue={(v) => setSort(v as keyof typeof SORTS)}
          options={[["createdAt", "Newest"], ["views", "Most visited"], [
            "destination",
            "Destination",
          ]]}
        />
      </div>
      {shown.length === 0
        ? <p class="muted">{urls.length === 0 ? "No short URLs yet." : "No URL matches."}</p>
        : (
          <ul class="url-list" aria-label="Short URLs">
            {shown.map((url) => (
              <UrlRow key={url.id} url={url} route={config.urlsRoute} onChange={reload} />
            ))}
          </ul>
        )}
    </>
  );
}
