/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/settings`: the server settings as a form generated from
 * the settings registry (`GET /api/server/settings/registry`), one tab per
 * category as Zipline's server settings pages group them: every key under
 * its human label with its help text, key and default, the control of its
 * kind (the Discord embeds as a form of their own), a restart mark, and the
 * keys the environment pins shown read-only. Searching looks through labels,
 * keys and help across every tab. Saving sends the changed keys only; the
 * 400's `issues` are shown beside the fields they name.
 */
import { useState } from "preact/hooks";
import { ApiFailure } from "../api.ts";
import {
  getRegistry,
  getSettings,
  type Registry,
  saveSettings,
  type SettingMeta as Meta,
  type SettingsView,
} from "../api/settings.ts";
import { useLoad } from "../hooks.ts";
import { EmbedFields, isEmbed } from "../components/chat_embed_form.tsx";
import { isLinkList, LinkListFields } from "../components/links_form.tsx";

/** A value as its form field holds it: `true`/`false` for switches, text for the rest. */
type Draft = string | boolean;

const PLACEHOLDER: Partial<Record<Meta["control"], string>> = {
  size: "50gb",
  duration: "30m",
  list: "one per line",
};

/** `value` as its field holds it. */
function toDraft(meta: Meta, value: unknown): Draft {
  if (meta.control === "switch") return value === true;
  if (value === null || value === undefined) return "";
  if (meta.control === "list") return (value as unknown[]).join("\n");
  if (meta.control === "json") return JSON.stringify(value, null, 2);
  return String(value);
}

/** What a field's text is sent as: the JSON the registry's schema takes. */
function fromDraft(meta: Meta, draft: Draft): unknown {
  if (typeof draft === "boolean") return draft;
  const text = draft.trim();
  if (text === "" && meta.nullable) return null;
  switch (meta.control) {
    case "number":
      return text === "" ? text : Number(text);
    case "list":
      return text.split("\n").map((s) => s.trim()).filter(Boolean);
    case "json":
      try {
        return JSON.parse(text);
      } catch {
        return text; // the server answers `Invalid JSON` for this key
      }
    default:
      return draft;
  }
}

/** How a default is written for people. */
function shown(value: unknown): string {
  if (value === null) return "none";
  if (Array.isArray(value)) {
    return value.length
      ? value.map((v) =>
        v && typeof v === "object" && "name" in v && "url" in v
          ? `${v.name} (${v.url})`
          : typeof v === "object"
          ? JSON.stringify(v)
          : String(v)
      ).join(", ")
      : "empty";
  }
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function Control(
  { meta, value, locked, onChange, describedBy }: {
    meta: Meta;
    value: Draft;
    locked: boolean;
    onChange: (value: Draft) => void;
    describedBy: string;
  },
) {
  const common = { id: meta.key, disabled: locked, "aria-describedby": describedBy };
  if (typeof value === "boolean") {
    return (
      <input
        {...common}
        type="checkbox"
        role="switch"
        class="switch"
        checked={value}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
    );
  }
  if (meta.options) {
    return (
      <select {...common} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {meta.options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    );
  }
  if (isEmbed(meta)) {
    return <EmbedFields id={meta.key} value={value} locked={locked} onChange={onChange} />;
  }
  if (isLinkList(meta)) {
    return <LinkListFields id={meta.key} value={value} locked={locked} onChange={onChange} />;
  }
  if (meta.control === "list" || meta.control === "json") {
    return (
      <textarea
        {...common}
        rows={meta.control === "json" ? 6 : 3}
        class={meta.control === "json" ? "code" : undefined}
        placeholder={PLACEHOLDER[meta.control]}
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <span class="with-unit">
      {meta.secret
        ? (
          <input
            {...common}
            type="password"
            autocomplete="off"
            value={value}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
        )
        : meta.control === "number"
        ? (
          <input
            {...common}
            type="number"
            value={value}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
        )
        : (
          <input
            {...common}
            type="text"
            placeholder={PLACEHOLDER[meta.control] ?? (meta.nullable ? "none" : undefined)}
            value={value}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
        )}
      {meta.unit === "ms" && <span class="muted">ms</span>}
    </span>
  );
}

function Setting(
  { meta, value, changed, locked, error, onChange }: {
    meta: Meta;
    value: Draft;
    changed: boolean;
    locked: boolean;
    error: string | undefined;
    onChange: (value: Draft) => void;
  },
) {
  const about = `${meta.key}-about`;
  const fieldset = isEmbed(meta) || isLinkList(meta);
  const Name = fieldset ? "span" : "label";
  return (
    <div class={`setting${changed ? " changed" : ""}${error ? " invalid" : ""}`}>
      <div class="setting-key">
        <Name {...(fieldset ? { id: `${meta.key}-label` } : { for: meta.key })}>
          {meta.label}
        </Name>
        <code class="muted small">{meta.key}</code>
        {meta.restart && <span class="badge">needs restart</span>}
        {meta.secret && <span class="badge">secret</span>}
        {meta.superadminOnly && <span class="badge">SUPERADMIN only</span>}
      </div>
      <div class="setting-control">
        <Control
          meta={meta}
          value={value}
          locked={locked}
          onChange={onChange}
          describedBy={about}
        />
        {error && <p class="error" role="alert">{error}</p>}
      </div>
      <p class="muted small setting-about" id={about}>
        {meta.description} Default: <code>{shown(meta.default)}</code>. {locked && (
          <>
            {" "}Set by the environment variable <code>{meta.env}</code>; read-only here.
          </>
        )}
      </p>
    </div>
  );
}

/** A category's name as an id. */
const slug = (category: string) => category.replace(/\W+/g, "-").toLowerCase();

/**
 * The categories as tabs (arrow keys move between them); a tab with unsaved
 * changes is marked.
 */
function CategoryTabs(
  { categories, current, onChoose, changed }: {
    categories: readonly string[];
    current: string;
    onChoose: (category: string) => void;
    changed: (category: string) => boolean;
  },
) {
  const move = (event: KeyboardEvent, index: number) => {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = categories[(index + step + categories.length) % categories.length];
    onChoose(next);
    document.getElementById(`tab-${slug(next)}`)?.focus();
  };
  return (
    <div class="tabs" role="tablist" aria-label="Setting categories">
      {categories.map((c, i) => (
        <button
          key={c}
          id={`tab-${slug(c)}`}
          type="button"
          role="tab"
          aria-selected={c === current}
          aria-controls={c === current ? `panel-${slug(c)}` : undefined}
          tabIndex={c === current ? 0 : -1}
          onClick={() => onChoose(c)}
          onKeyDown={(e) => move(e, i)}
        >
          {c}
          {changed(c) && <span class="tab-changed" aria-label="(changed)">•</span>}
        </button>
      ))}
    </div>
  );
}

function SettingsForm({ registry, view }: { registry: Registry; view: SettingsView }) {
  const initial = () =>
    Object.fromEntries(registry.settings.map((m) => [m.key, toDraft(m, view.settings[m.key])]));
  const [drafts, setDrafts] = useState<Record<string, Draft>>(initial);
  const [saved, setSaved] = useState(view);
  const [search, setSearch] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const isChanged = (m: Meta) => drafts[m.key] !== toDraft(m, saved.settings[m.key]);
  const changed = registry.settings.filter(isChanged);
  const needle = search.trim().toLowerCase();
  const visible = registry.settings.filter((m) =>
    !needle ||
    [m.label, m.key, m.description, m.alias ?? ""].some((t) => t.toLowerCase().includes(needle))
  );
  const [tab, setTab] = useState<string>(registry.categories[0]);
  const save = async (event: Event) => {
    event.preventDefault();
    const body = Object.fromEntries(changed.map((m) => [m.key, fromDraft(m, drafts[m.key])]));
    try {
      const next = await saveSettings(body);
      setSaved(next);
      setDrafts(Object.fromEntries(
        registry.settings.map((m) => [m.key, toDraft(m, next.settings[m.key])]),
      ));
      setErrors({});
      setMessage({
        ok: true,
        text: `Saved ${changed.length} ${changed.length === 1 ? "setting" : "settings"}.`,
      });
    } catch (e) {
      const issues = e instanceof ApiFailure ? e.issues : [];
      setErrors(Object.fromEntries(issues.map((i) => [String(i.path[0]), i.message])));
      setMessage({ ok: false, text: (e as Error).message });
    }
  };
  return (
    <form onSubmit={save} aria-label="Server settings" class="settings-form">
      <div class="toolbar settings-bar" role="search">
        <label class="field grow">
          <span>Search settings by name or key</span>
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={changed.length === 0}>
          {changed.length ? `Save ${changed.length} changed` : "Nothing changed"}
        </button>
      </div>
      {message && (
        <p class={message.ok ? "ok" : "error"} role={message.ok ? "status" : "alert"}>
          {message.text}
        </p>
      )}
      {!needle && (
        <CategoryTabs
          categories={registry.categories}
          current={tab}
          onChoose={setTab}
          changed={(c) => changed.some((m) => m.category === c)}
        />
      )}
      {registry.categories.map((category) => {
        const keys = visible.filter((m) => m.category === category);
        if (keys.length === 0 || (!needle && category !== tab)) return null;
        const id = `category-${slug(category)}`;
        return (
          <section
            key={category}
            class="card"
            aria-labelledby={id}
            {...(needle ? {} : { role: "tabpanel", id: `panel-${slug(category)}` })}
          >
            <h2 id={id}>{category}</h2>
            {keys.map((m) => (
              <Setting
                key={m.key}
                meta={m}
                value={drafts[m.key]}
                changed={isChanged(m)}
                locked={saved.tampered.includes(m.key)}
                error={errors[m.key]}
                onChange={(value) => setDrafts({ ...drafts, [m.key]: value })}
              />
            ))}
          </section>
        );
      })}
      {visible.length === 0 && <p class="muted">No setting matches.</p>}
    </form>
  );
}

/** The server settings page. */
export function AdminSettingsPage() {
  const [registry, , registryError] = useLoad(getRegistry);
  const [view, , viewError] = useLoad(getSettings);
  const error = registryError ?? viewError;
  return (
    <>
      <h1>Server settings</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {registry && view && <SettingsForm registry={registry} view={view} />}
    </>
  );
}
