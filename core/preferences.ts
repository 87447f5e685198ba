/**
 * A user's dashboard preferences (`GET`/`PATCH /api/user/preferences`): the
 * theme (an installed theme's id, or `system` to follow the device with a
 * dark and a light pick), whether deletions ask first ("warn on
 * deletion", as Zipline's dashboard settings have it), whether file lists
 * show type icons instead of pictures ("disable media preview") and whether
 * new uploads are private. Zipline keeps these in
 * each browser; Ferry keeps them with the user, so they follow it to every
 * browser. They are stored in the user's record beside its view settings,
 * under {@link PREFERENCES_KEY}, which the API's `view` never shows, so they
 * travel with exports and need no schema of their own.
 */
import type { UserRecord } from "../db/users.ts";
import { ApiError, badRequest } from "./errors.ts";
import type { Services } from "./services.ts";
import { allThemes, type ThemeChoice } from "./themes.ts";

/** The key of the user's `view` record the preferences live under. */
export const PREFERENCES_KEY = "dashboard";

/** A user's dashboard preferences; `null` theme fields mean the server's default. */
export interface Preferences extends ThemeChoice {
  warnDeletion: boolean;
  /** File lists show each file's type icon instead of its picture (Zipline's "Disable media preview"). */
  disableMediaPreview: boolean;
  /** New uploads are private (`files/private.ts`) unless their upload says otherwise. */
  privateByDefault: boolean;
}

const text = (v: unknown) => typeof v === "string" ? v : null;

/** `user`'s preferences, with the defaults for what it never chose. */
export function preferencesOf(user: UserRecord): Preferences {
  const stored = user.view[PREFERENCES_KEY];
  const p = stored && typeof stored === "object" ? stored as Record<string, unknown> : {};
  return {
    theme: text(p.theme),
    themeDark: text(p.themeDark),
    themeLight: text(p.themeLight),
    warnDeletion: p.warnDeletion !== false,
    disableMediaPreview: p.disableMediaPreview === true,
    privateByDefault: p.privateByDefault === true,
  };
}

/** Checks that `id` names an installed theme (or, where `system` may be chosen, is it). */
function checkTheme(s: Services, field: string, id: string | null | undefined, system: boolean) {
  if (id === null || id === undefined) return;
  if (system && id === "system") return;
  if (!allThemes(s.themes).some((t) => t.id === id)) {
    throw badRequest(`${field}: no theme is installed with the id ${id}`);
  }
}

/** Changes the preferences named in `patch` (`null` theme fields: back to the server's default). */
export async function updatePreferences(
  s: Services,
  user: UserRecord,
  patch: Partial<Preferences>,
): Promise<Preferences> {
  checkTheme(s, "theme", patch.theme, true);
  checkTheme(s, "themeDark", patch.themeDark, false);
  checkTheme(s, "themeLight", patch.themeLight, false);
  const next = { ...preferencesOf(user) };
  const keys = [
    "theme",
    "themeDark",
    "themeLight",
    "warnDeletion",
    "disableMediaPreview",
    "privateByDefault",
  ] as const;
  for (const key of keys) {
    if (patch[key] !== undefined) (next as Record<string, unknown>)[key] = patch[key];
  }
  const updated = await s.store.users.update(
    user.id,
    { view: { ...user.view, [PREFERENCES_KEY]: next } },
    new Date(s.clock.now()),
  );
  if (!updated) throw new ApiError(401, "not logged in");
  return preferencesOf(updated);
}
