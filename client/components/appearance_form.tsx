/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The account's dashboard preferences, kept with the user
 * (`/api/user/preferences`) so they follow it to every browser: the theme
 * (one of the server's themes, "System" with a dark and a light one, or the
 * server's default), applied to the page at once, and "Warn on deletion".
 */
import { useEffect, useState } from "preact/hooks";
import {
  getPreferences,
  getThemes,
  type Preferences,
  type Themes,
  updatePreferences,
} from "../api/account.ts";
import { SelectField } from "./field.tsx";
import { toast, warnDeletion } from "./feedback.tsx";
import { noMediaPreview } from "./file_thumb.tsx";

/** The on/off preferences: each one's label and what saving it on or off says. */
const SWITCHES: {
  key: "warnDeletion" | "disableMediaPreview" | "privateByDefault";
  label: string;
  on: string;
  off: string;
}[] = [
  {
    key: "warnDeletion",
    label: "Warn on deletion: ask before deleting files, URLs, folders, tags and invites",
    on: "Deletions will ask first.",
    off: "Deletions will no longer ask.",
  },
  {
    key: "disableMediaPreview",
    label: "Disable media preview: show files as their type's icon, not their picture",
    on: "Files will show as their type's icon.",
    off: "Files will show their pictures.",
  },
  {
    key: "privateByDefault",
    label: "Private by default: new uploads are served only to you (share them with links)",
    on: "New uploads will be private.",
    off: "New uploads will be public.",
  },
];

/** A theme as `GET /api/server/themes` lists it. */
type Theme = Themes["themes"][number];

/** Puts the theme `prefs` choose on `<html>`, as the server would on the next page. */
function applyTheme(prefs: Preferences, { themes, defaultTheme }: Themes) {
  const known = (id: string | null) => id !== null && themes.some((t) => t.id === id);
  const root = document.documentElement;
  const wanted = prefs.theme ?? defaultTheme.default;
  const fixed = wanted !== "system" && known(wanted)
    ? wanted
    : defaultTheme.default !== "system" && known(defaultTheme.default)
    ? defaultTheme.default
    : null;
  if (fixed) root.dataset.theme = fixed;
  else delete root.dataset.theme;
  root.dataset.themeDark = known(prefs.themeDark) ? prefs.themeDark! : defaultTheme.dark;
  root.dataset.themeLight = known(prefs.themeLight) ? prefs.themeLight! : defaultTheme.light;
}

const nameOf = (themes: Theme[], id: string) => themes.find((t) => t.id === id)?.name ?? id;

/** The options of a theme select: every theme, or those of one scheme. */
function themeOptions(themes: Theme[], scheme?: "dark" | "light") {
  const sorted = themes.filter((t) => !scheme || t.colorScheme === scheme);
  return sorted.map((t) => [t.id, scheme ? t.name : `${t.name} (${t.colorScheme})`] as const);
}

/** The "Dashboard" card of the account page. */
export function AppearanceForm() {
  const [themes, setThemes] = useState<Themes | null>(null);
  const [prefs, setPrefs] = useState<Preferences | null>(null);
  useEffect(() => {
    Promise.all([
      getThemes(),
      getPreferences(),
    ]).then(([t, p]) => {
      setThemes(t);
      setPrefs(p);
    }, (e: Error) => toast(e.message, "error"));
  }, []);
  if (!themes || !prefs) {
    return (
      <section class="card" id="appearance" aria-labelledby="appearance-title">
        <h2 id="appearance-title">Dashboard</h2>
        <p class="muted">Loading…</p>
      </section>
    );
  }
  const save = async (change: Partial<Preferences>, done: string) => {
    const before = prefs;
    const next = { ...prefs, ...change };
    setPrefs(next);
    applyTheme(next, themes);
    try {
      const saved = await updatePreferences(change);
      setPrefs(saved);
      warnDeletion.value = saved.warnDeletion;
      noMediaPreview.value = saved.disableMediaPreview;
      toast(done);
    } catch (e) {
      setPrefs(before);
      applyTheme(before, themes);
      toast((e as Error).message, "error");
    }
  };
  const d = themes.defaultTheme;
  const serverDefault = d.default === "system" ? "System" : nameOf(themes.themes, d.default);
  const system = (prefs.theme ?? d.default) === "system";
  return (
    <section class="card" id="appearance" aria-labelledby="appearance-title">
      <h2 id="appearance-title">Dashboard</h2>
      <p class="muted">Kept with your account, so every browser you sign in with shows it.</p>
      <div class="preferences-grid">
        <SelectField
          label="Theme"
          value={prefs.theme ?? ""}
          onValue={(v) => save({ theme: v === "" ? null : v }, "Theme saved.")}
          options={[
            ["", `Server default (${serverDefault})`],
            ["system", "System: follow the device"],
            ...themeOptions(themes.themes),
          ]}
        />
        {system && (
          <>
            <SelectField
              label="Theme in dark mode"
              value={prefs.themeDark ?? ""}
              onValue={(v) => save({ themeDark: v === "" ? null : v }, "Theme saved.")}
              options={[
                ["", `Server default (${nameOf(themes.themes, d.dark)})`],
                ...themeOptions(themes.themes, "dark"),
              ]}
            />
            <SelectField
              label="Theme in light mode"
              value={prefs.themeLight ?? ""}
              onValue={(v) => save({ themeLight: v === "" ? null : v }, "Theme saved.")}
              options={[
                ["", `Server default (${nameOf(themes.themes, d.light)})`],
                ...themeOptions(themes.themes, "light"),
              ]}
            />
          </>
        )}
      </div>
      {SWITCHES.map(({ key, label, on, off }) => (
        <label class="check" key={key}>
          <input
            type="checkbox"
            checked={prefs[key]}
            onChange={(e) =>
              save({ [key]: e.currentTarget.checked }, e.currentTarget.checked ? on : off)}
          />
          {label}
        </label>
      ))}
    </section>
  );
}
