/**
 * The dashboard themes Ferry lists at `GET /api/server/themes`, in the shape
 * Zipline v4's web client applies (a Mantine theme override with an `id`, a
 * `name`, a `colorScheme` and a `mainBackgroundColor`), and the settings'
 * choice among them. The ids are Zipline's built-in ones, so the theme
 * settings of an imported instance keep their meaning.
 */
import type { Settings } from "./settings/registry.ts";

/** A theme as Zipline's client reads it. */
export interface Theme {
  id: string;
  name: string;
  colorScheme: "dark" | "light";
  primaryColor: string;
  mainBackgroundColor: string;
  /** Ten shades per name; the client colours its OAuth buttons with these four. */
  colors: Record<string, string[]>;
}

const shades = (colour: string) => Array<string>(10).fill(colour);

/** The sign-in providers' brand colours, which every theme carries. */
const PROVIDER_COLOURS = {
  google: shades("#4285f4"),
  github: shades("#24292e"),
  oidc: shades("#72abcf"),
  discord: shades("#5865f2"),
};

const theme = (
  id: string,
  name: string,
  colorScheme: Theme["colorScheme"],
  primaryColor: string,
  mainBackgroundColor: string,
): Theme => ({
  id: `builtin:${id}`,
  name,
  colorScheme,
  primaryColor,
  mainBackgroundColor,
  colors: PROVIDER_COLOURS,
});

/** The built-in themes, in the order the pickers list them. */
export const THEMES: readonly Theme[] = [
  theme("dark_gray", "Dark Gray", "dark", "gray", "#141517"),
  theme("light_gray", "Light Gray", "light", "gray", "#f7f7f8"),
  theme("black_dark", "Black Dark", "dark", "gray", "#000000"),
  theme("dark_blue", "Dark Blue", "dark", "blue", "#0f172a"),
  theme("light_blue", "Light Blue", "light", "blue", "#eef4fb"),
];

/** `GET /api/server/themes`: the themes and the server's default, dark and light choice. */
export function themesView(settings: Settings) {
  return {
    themes: THEMES,
    defaultTheme: {
      default: settings.websiteThemeDefault,
      dark: settings.websiteThemeDark,
      light: settings.websiteThemeLight,
    },
  };
}
