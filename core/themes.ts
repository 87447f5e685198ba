/**
 * The dashboard themes: Zipline v4's built-in ones by id and name, custom
 * ones read from `*.theme.json` files in a themes directory as Zipline reads
 * them (the file's name without `.theme.json` is the id), listed at
 * `GET /api/server/themes` in the shape Zipline's web client applies (a
 * Mantine theme override with an `id`, a `name`, a `colorScheme`, a
 * `primaryColor`, a `mainBackgroundColor` and ten-shade `colors`), and the
 * choice among them: a user's own, else the settings' default.
 */
import { basename, join } from "node:path";
import { z } from "zod";
import type { Settings } from "./settings/registry.ts";
import type { Logger } from "./log.ts";

/** A theme as Zipline's client reads it. */
export interface Theme {
  id: string;
  name: string;
  colorScheme: "dark" | "light";
  /** A colour name: a key of `colors`, or one of Mantine's (`blue`, `gray`, …). */
  primaryColor: string;
  mainBackgroundColor: string;
  /** Ten shades per name; the client colours its OAuth buttons with four of them. */
  colors: Record<string, string[]>;
}

/** Mantine's default palettes (ten shades, lightest first), which a theme's colour names may mean. */
export const MANTINE_COLORS: Readonly<Record<string, readonly string[]>> = {
  dark: [
    "#C9C9C9",
    "#b8b8b8",
    "#828282",
    "#696969",
    "#424242",
    "#3b3b3b",
    "#2e2e2e",
    "#242424",
    "#1f1f1f",
    "#141414",
  ],
  gray: [
    "#f8f9fa",
    "#f1f3f5",
    "#e9ecef",
    "#dee2e6",
    "#ced4da",
    "#adb5bd",
    "#868e96",
    "#495057",
    "#343a40",
    "#212529",
  ],
  red: [
    "#fff5f5",
    "#ffe3e3",
    "#ffc9c9",
    "#ffa8a8",
    "#ff8787",
    "#ff6b6b",
    "#fa5252",
    "#f03e3e",
    "#e03131",
    "#c92a2a",
  ],
  pink: [
    "#fff0f6",
    "#ffdeeb",
    "#fcc2d7",
    "#faa2c1",
    "#f783ac",
    "#f06595",
    "#e64980",
    "#d6336c",
    "#c2255c",
    "#a61e4d",
  ],
  grape: [
    "#f8f0fc",
    "#f3d9fa",
    "#eebefa",
    "#e599f7",
    "#da77f2",
    "#cc5de8",
    "#be4bdb",
    "#ae3ec9",
    "#9c36b5",
    "#862e9c",
  ],
  violet: [
    "#f3f0ff",
    "#e5dbff",
    "#d0bfff",
    "#b197fc",
    "#9775fa",
    "#845ef7",
    "#7950f2",
    "#7048e8",
    "#6741d9",
    "#5f3dc4",
  ],
  indigo: [
    "#edf2ff",
    "#dbe4ff",
    "#bac8ff",
    "#91a7ff",
    "#748ffc",
    "#5c7cfa",
    "#4c6ef5",
    "#4263eb",
    "#3b5bdb",
    "#364fc7",
  ],
  blue: [
    "#e7f5ff",
    "#d0ebff",
    "#a5d8ff",
    "#74c0fc",
    "#4dabf7",
    "#339af0",
    "#228be6",
    "#1c7ed6",
    "#1971c2",
    "#1864ab",
  ],
  cyan: [
    "#e3fafc",
    "#c5f6fa",
    "#99e9f2",
    "#66d9e8",
    "#3bc9db",
    "#22b8cf",
    "#15aabf",
    "#1098ad",
    "#0c8599",
    "#0b7285",
  ],
  teal: [
    "#e6fcf5",
    "#c3fae8",
    "#96f2d7",
    "#63e6be",
    "#38d9a9",
    "#20c997",
    "#12b886",
    "#0ca678",
    "#099268",
    "#087f5b",
  ],
  green: [
    "#ebfbee",
    "#d3f9d8",
    "#b2f2bb",
    "#8ce99a",
    "#69db7c",
    "#51cf66",
    "#40c057",
    "#37b24d",
    "#2f9e44",
    "#2b8a3e",
  ],
  lime: [
    "#f4fce3",
    "#e9fac8",
    "#d8f5a2",
    "#c0eb75",
    "#a9e34b",
    "#94d82d",
    "#82c91e",
    "#74b816",
    "#66a80f",
    "#5c940d",
  ],
  yellow: [
    "#fff9db",
    "#fff3bf",
    "#ffec99",
    "#ffe066",
    "#ffd43b",
    "#fcc419",
    "#fab005",
    "#f59f00",
    "#f08c00",
    "#e67700",
  ],
  orange: [
    "#fff4e6",
    "#ffe8cc",
    "#ffd8a8",
    "#ffc078",
    "#ffa94d",
    "#ff922b",
    "#fd7e14",
    "#f76707",
    "#e8590c",
    "#d9480f",
  ],
};

const shades = (colour: string) => Array<string>(10).fill(colour);

/** The sign-in providers' brand colours, which every theme carries (as Zipline adds them). */
const PROVIDER_COLOURS = {
  google: shades("#4285f4"),
  github: shades("#24292e"),
  oidc: shades("#72abcf"),
  discord: shades("#5865f2"),
};

/** The dark shades of Zipline's "midnight" themes. */
const MIDNIGHT_DARK = [
  "#FFFFFF",
  "#999999",
  "#a8a8a8",
  "#666666",
  "#282828",
  "#181818",
  "#151515",
  "#111111",
  "#181818",
  "#00001E",
];

/**
 * A Catppuccin flavour as ten Mantine shades: for a dark one text, subtext 1
 * and 0, overlay 1, surface 2, 1 and 0, base, mantle, crust; for Latte the
 * same from light to dark.
 */
const catppuccin = (p: string) => p.split(" ");

const theme = (
  id: string,
  name: string,
  colorScheme: Theme["colorScheme"],
  primaryColor: string,
  mainBackgroundColor: string,
  colors: Record<string, string[]> = {},
): Theme => ({
  id: `builtin:${id}`,
  name,
  colorScheme,
  primaryColor,
  mainBackgroundColor,
  colors: { ...colors, ...PROVIDER_COLOURS },
});

/** Zipline v4's built-in themes, in the order the pickers list them. */
export const THEMES: readonly Theme[] = [
  theme("dark_gray", "Dark Gray", "dark", "gray", "#141517"),
  theme("light_gray", "Light Gray", "light", "gray", "#f7f7f8"),
  theme("black_dark", "Black Dark", "dark", "gray", "#000000", {
    dark: [
      "#C1C2C5",
      "#A6A7AB",
      "#909296",
      "#5c5f66",
      "#373A40",
      "#2C2E33",
      "#1A1B1E",
      "#0a0a0a",
      "#050505",
      "#000000",
    ],
  }),
  theme("dark_blue", "Dark Blue", "dark", "blue", "#0f172a", {
    dark: [
      "#e2e8f0",
      "#cbd5e1",
      "#94a3b8",
      "#64748b",
      "#334155",
      "#293548",
      "#1e293b",
      "#172033",
      "#0f172a",
      "#0b1120",
    ],
  }),
  theme("light_blue", "Light Blue", "light", "blue", "#eef4fb"),
  theme("catppuccin_latte", "Catppuccin Latte", "light", "blue", "#e6e9ef", {
    blue: catppuccin(
      "#e8eefe #c9d8fd #a4befb #7ea3f9 #5a8af8 #3b76f6 #1e66f5 #1a5ad8 #164dba #12409b",
    ),
    gray: catppuccin(
      "#eff1f5 #e6e9ef #dce0e8 #ccd0da #bcc0cc #acb0be #9ca0b0 #5c5f77 #4c4f69 #4c4f69",
    ),
  }),
  theme("catppuccin_frappe", "Catppuccin Frappé", "dark", "blue", "#292c3c", {
    dark: catppuccin(
      "#c6d0f5 #b5bfe2 #a5adce #838ba7 #626880 #51576d #414559 #303446 #292c3c #232634",
    ),
    blue: catppuccin(
      "#e8eefc #d1ddf9 #b9cbf6 #a2baf2 #8caaee #7897e0 #6585d2 #5273c3 #3f61b5 #2c4fa6",
    ),
  }),
  theme("catppuccin_macchiato", "Catppuccin Macchiato", "dark", "blue", "#1e2030", {
    dark: catppuccin(
      "#cad3f5 #b8c0e0 #a5adcb #8087a2 #5b6078 #494d64 #363a4f #24273a #1e2030 #181926",
    ),
    blue: catppuccin(
      "#e8effd #d0dffc #b9cffa #a1bef7 #8aadf4 #779ae5 #6488d6 #5176c7 #3e64b8 #2b52a9",
    ),
  }),
  theme("catppuccin_mocha", "Catppuccin Mocha", "dark", "blue", "#181825", {
    dark: catppuccin(
      "#cdd6f4 #bac2de #a6adc8 #7f849c #585b70 #45475a #313244 #1e1e2e #181825 #11111b",
    ),
    blue: catppuccin(
      "#e7f0fe #cfe1fd #b8d2fc #a0c3fb #89b4fa #76a0ea #638cda #5078ca #3d64ba #2a50aa",
    ),
  }),
  theme("midnight_orange", "Midnight Orange", "dark", "orange", "#0a0a0a", {
    orange: [
      "#666666",
      "#f5994b",
      "#f48c35",
      "#f3801f",
      "#f3801f",
      "#181818",
      "#191919",
      "#3742AA",
      "#181818",
      "#191919",
    ],
    dark: MIDNIGHT_DARK,
  }),
  theme("midnight_blue", "Midnight Blue", "dark", "blue", "#0a0a0a", {
    blue: [
      "#FFFFFF",
      "#7C7DC2",
      "#7778C0",
      "#6C6FBC",
      "#575DB5",
      "#4D54B2",
      "#424BAE",
      "#3742AA",
      "#323EA8",
      "#2C39A6",
    ],
    dark: MIDNIGHT_DARK,
  }),
  theme("midnight_purple", "Midnight Purple", "dark", "pink", "#0a0a0a", {
    pink: [
      "#f6ecff",
      "#e6d7fa",
      "#caabef",
      "#ac7de6",
      "#9356dd",
      "#833ed9",
      "#7b31d7",
      "#6422b5",
      "#5e1fab",
      "#511797",
    ],
    dark: MIDNIGHT_DARK,
  }),
];

/**
 * A value a theme file may give a colour: hex, `rgb()`/`hsl()`/`color-mix()`
 * and the like, or a name; never anything that could end a CSS declaration or
 * fetch (`;`, braces, quotes, `url(`), since it goes into a stylesheet.
 */
const CssColour = z.string().trim().min(1).max(200).regex(
  /^(?!.*url\s*\()(?!.*expression)[#\w\s(),.%+\-/]+$/i,
  "is not a colour",
);

/** A custom theme file's contents (its id is its file name); unknown fields are ignored. */
const ThemeFile = z.object({
  name: z.string().trim().min(1).max(100),
  colorScheme: z.enum(["dark", "light"]),
  primaryColor: z.string().trim().regex(/^[\w-]{1,50}$/, "is not a colour name").default("blue"),
  mainBackgroundColor: CssColour.optional(),
  colors: z.record(z.string().regex(/^[\w-]{1,50}$/), z.array(CssColour).length(10)).default({}),
});

/** The ids a custom theme's file name may give: letters, digits, `_`, `-` and `.`. */
const CUSTOM_ID = /^[\w.-]{1,100}$/;

/**
 * The custom themes in `directory`: every `<id>.theme.json` in it, parsed as
 * Zipline's client reads them (a missing `mainBackgroundColor` takes
 * Zipline's default for the scheme). A file that cannot be read or is no
 * theme is left out and logged; a missing directory means none.
 */
export async function readThemes(directory: string, logger: Logger): Promise<Theme[]> {
  let names: string[];
  try {
    names = [];
    for await (const entry of Deno.readDir(directory)) {
      if (entry.isFile && entry.name.endsWith(".theme.json")) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    logger.warn("the themes directory cannot be read", {
      directory,
      error: (error as Error).message,
    });
    return [];
  }
  const themes: Theme[] = [];
  for (const file of names.sort()) {
    const id = basename(file, ".theme.json");
    try {
      if (!CUSTOM_ID.test(id) || id.startsWith("builtin")) {
        throw new Error("the file name must be letters, digits, _, - or . before .theme.json");
      }
      const parsed = ThemeFile.parse(JSON.parse(await Deno.readTextFile(join(directory, file))));
      themes.push({
        id,
        name: parsed.name,
        colorScheme: parsed.colorScheme,
        primaryColor: parsed.primaryColor,
        mainBackgroundColor: parsed.mainBackgroundColor ??
          (parsed.colorScheme === "light" ? "#f7f7f7" : "#141414"),
        colors: { ...parsed.colors, ...PROVIDER_COLOURS },
      });
    } catch (error) {
      const message = error instanceof z.ZodError
        ? error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")
        : (error as Error).message;
      logger.warn("a theme file is left out", { file: join(directory, file), error: message });
    }
  }
  return themes;
}

/** Every theme a user may choose: the custom ones (as Zipline lists them, first), then the built-in. */
export function allThemes(custom: readonly Theme[] = []): Theme[] {
  return [...custom, ...THEMES];
}

/** `GET /api/server/themes`: the themes and the server's default, dark and light choice. */
export function themesView(settings: Settings, custom: readonly Theme[] = []) {
  return {
    themes: allThemes(custom),
    defaultTheme: {
      default: settings.websiteThemeDefault,
      dark: settings.websiteThemeDark,
      light: settings.websiteThemeLight,
    },
  };
}

/** A user's own choice of theme: a theme id or `system`, and the pair `system` uses. */
export interface ThemeChoice {
  theme: string | null;
  themeDark: string | null;
  themeLight: string | null;
}

/**
 * The theme a page is drawn in: one theme (`fixed`), or a dark and a light
 * one that follow the system's preference. A user's own choice wins over the
 * settings' default; an id no longer installed falls back to the default.
 */
export type ResolvedTheme =
  | { fixed: Theme }
  | { dark: Theme; light: Theme };

/** Resolves `choice` (none: the server's default) against the installed themes. */
export function resolveTheme(
  settings: Settings,
  custom: readonly Theme[],
  choice: Partial<ThemeChoice> = {},
): ResolvedTheme {
  const themes = allThemes(custom);
  const find = (id: string | null | undefined) =>
    id ? themes.find((t) => t.id === id) ?? null : null;
  const wanted = choice.theme ?? settings.websiteThemeDefault;
  const fixed = wanted === "system" ? null : find(wanted) ?? find(settings.websiteThemeDefault);
  if (fixed) return { fixed };
  return {
    dark: find(choice.themeDark) ?? find(settings.websiteThemeDark) ?? THEMES[0],
    light: find(choice.themeLight) ?? find(settings.websiteThemeLight) ?? THEMES[1],
  };
}
