/**
 * How the pages look, from the website settings: the title's logo, the
 * external links, the theme (a signed-in user's own choice, else a
 * visitor's light/dark/system switch kept in a cookie, else the server's
 * default; `<html>` carries it, so the first paint is already right), the
 * login page's background, and the build's version. Pages read it from
 * {@link LookContext}; the Content-Security-Policy of a page allows images
 * from the origins it names.
 */
import { createContext } from "hono/jsx";
import type { Settings } from "../../core/settings/registry.ts";
import { resolveTheme, type Theme, type ThemeChoice } from "../../core/themes.ts";
import { themeAsset, themeAttributes } from "./theme_css.ts";

/** The cookie that holds a signed-out visitor's theme: `light`, `dark` or `system` (absent: the server's). */
export const THEME_COOKIE = "ferry_theme";

/** What the website settings make of every page. */
export interface Look {
  logo: string | null;
  links: { name: string; url: string }[];
  /** The attributes of `<html>` that choose the theme (`data-theme`, or the dark and light pair). */
  theme: Record<string, string>;
  /** The themes the visitor's light/dark switch moves between. */
  switchThemes: { light: string; dark: string };
  /** The path of the themes stylesheet. */
  themesCss: string;
  loginBackground: { url: string; blur: boolean } | null;
  /** Whether pages link the web app manifest (`pwaEnabled`). */
  installable: boolean;
  /** The running build's version, shown in the dashboard's sidebar. */
  version: string;
}

/** A visitor's switch (`light`, `dark`, `system`) as a theme choice. */
function cookieChoice(settings: Settings, cookie: string | undefined): Partial<ThemeChoice> {
  if (cookie === "light") return { theme: settings.websiteThemeLight };
  if (cookie === "dark") return { theme: settings.websiteThemeDark };
  if (cookie === "system") return { theme: "system" };
  return {};
}

/**
 * The look of a page: `choice` is a signed-in user's own theme choice (or
 * `null` for a visitor, whose `cookie` then counts).
 */
export function lookOf(
  settings: Settings,
  context: {
    custom?: readonly Theme[];
    choice: Partial<ThemeChoice> | null;
    cookie?: string;
    version: string;
  },
): Look {
  const background = settings.websiteLoginBackground;
  const custom = context.custom ?? [];
  const choice = context.choice ?? cookieChoice(settings, context.cookie);
  const resolved = resolveTheme(settings, custom, choice);
  const pair = resolveTheme(settings, custom, { ...choice, theme: "system" });
  return {
    logo: settings.websiteTitleLogo,
    links: settings.websiteExternalLinks,
    installable: settings.pwaEnabled,
    theme: { ...themeAttributes(pair), ...themeAttributes(resolved) },
    switchThemes: "dark" in pair
      ? { light: pair.light.id, dark: pair.dark.id }
      : { light: settings.websiteThemeLight, dark: settings.websiteThemeDark },
    themesCss: `/assets/${themeAsset(custom).hashedName}`,
    loginBackground: background
      ? { url: background, blur: settings.websiteLoginBackgroundBlur }
      : null,
    version: context.version,
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
  theme: {},
  switchThemes: { light: "builtin:light_gray", dark: "builtin:dark_gray" },
  themesCss: "",
  loginBackground: null,
  installable: false,
  version: "",
});
