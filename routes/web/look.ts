/**
 * How the pages look, from the website settings: the title's logo, the
 * external links, the theme (the server's default, or the visitor's own
 * choice kept in a cookie so the first paint is already right), and the login
 * page's background. Pages read it from {@link LookContext}; the
 * Content-Security-Policy of a page allows images from the origins it names.
 */
import { createContext } from "hono/jsx";
import type { Settings } from "../../core/settings/registry.ts";

/** The cookie that holds a visitor's theme: `light`, `dark` or `system` (absent: the server's). */
export const THEME_COOKIE = "ferry_theme";

/** What the website settings make of every page. */
export interface Look {
  logo: string | null;
  links: { name: string; url: string }[];
  /** A forced theme; `null` follows the system. */
  theme: "light" | "dark" | null;
  loginBackground: { url: string; blur: boolean } | null;
  /** Whether pages link the web app manifest (`pwaEnabled`). */
  installable: boolean;
}

/** The theme a theme id stands for (`builtin:dark_gray` → dark; `system` → none). */
function themeOf(id: string | undefined): "light" | "dark" | null {
  if (id === "light" || id === "dark") return id;
  if (!id || id === "system") return null;
  return /dark/i.test(id) ? "dark" : /light/i.test(id) ? "light" : null;
}

/** The look of a page for a visitor whose theme cookie holds `chosen`. */
export function lookOf(settings: Settings, chosen: string | undefined): Look {
  const background = settings.websiteLoginBackground;
  return {
    logo: settings.websiteTitleLogo,
    links: settings.websiteExternalLinks,
    installable: settings.pwaEnabled,
    theme: chosen === "system" ? null : themeOf(chosen) ?? themeOf(settings.websiteThemeDefault),
    loginBackground: background
      ? { url: background, blur: settings.websiteLoginBackgroundBlur }
      : null,
  };
}

/** The origins the look loads images from, for the page's `img-src`. */
export function imageOrigins(look: Look): string[] {
  const origins = new Set<string>();
  for (const url of [look.logo, look.loginBackground?.url]) {
    if (url) origins.add(new URL(url).origin);
  }
  return [...origins];
}

/** The look every page renders with; the default is the plain one. */
export const LookContext = createContext<Look>({
  logo: null,
  links: [],
  theme: null,
  loginBackground: null,
  installable: false,
});
