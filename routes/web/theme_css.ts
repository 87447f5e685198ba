/**
 * The themes as a stylesheet: each theme's Mantine colours turned into the
 * custom properties Ferry's pages are drawn with (`--bg`, `--card`, `--fg`,
 * `--muted`, `--line`, `--accent`, `--accent-fg`, `--danger`, `--ok`), on
 * `<html data-theme="<id>">` for a fixed theme, or on `data-theme-dark` /
 * `data-theme-light` under the matching `prefers-color-scheme` for a pair that
 * follows the system. Text colours are chosen (or darkened and lightened) for
 * a contrast of at least 4.5:1 on the backgrounds they sit on, so every
 * theme, custom ones included where they give hex colours, stays readable.
 * Served as one file (`/assets/themes.<hash>.css`): the CSP allows no inline
 * style.
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { allThemes, MANTINE_COLORS, type ResolvedTheme, type Theme } from "../../core/themes.ts";

/** The custom properties of one theme. */
export type ThemeVariables = Record<
  "bg" | "card" | "fg" | "muted" | "line" | "accent" | "accent-fg" | "danger" | "ok",
  string
>;

type Rgb = [number, number, number];

/** `#rgb` or `#rrggbb` as channels 0–255; `null` for anything else (a CSS expression). */
export function parseHex(colour: string): Rgb | null {
  const m = colour.trim().match(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i);
  if (!m) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1];
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
}

const toHex = (rgb: Rgb) =>
  "#" + rgb.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("");

function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** The WCAG contrast ratio of two hex colours; `Infinity` when either is not hex (unknown). */
export function contrast(a: string, b: string): number {
  const x = parseHex(a), y = parseHex(b);
  if (!x || !y) return Infinity;
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p);
  return (hi + 0.05) / (lo + 0.05);
}

const READABLE = 4.5;

/** Whether `colour` reads on every one of `backgrounds`. */
const readsOn = (colour: string, backgrounds: string[]) =>
  backgrounds.every((bg) => contrast(colour, bg) >= READABLE);

/** `colour` moved toward `target` in tenths until it reads on `backgrounds` (or is `target`). */
function untilReadable(colour: string, target: string, backgrounds: string[]): string {
  const from = parseHex(colour), to = parseHex(target);
  if (!from || !to) return colour;
  for (let step = 0; step <= 10; step++) {
    const mixed = toHex(from.map((c, i) => c + (to[i] - c) * step / 10) as Rgb);
    if (readsOn(mixed, backgrounds)) return mixed;
  }
  return target;
}

/** The shades a colour name means in `theme`: its own, else Mantine's, else Mantine's blue. */
function palette(theme: Theme, name: string): readonly string[] {
  return theme.colors[name] ?? MANTINE_COLORS[name] ?? MANTINE_COLORS.blue;
}

/**
 * The shade of `shades` to draw text and buttons in: on a light theme the
 * lightest that reads on `backgrounds`; on a dark one the fifth (Mantine's
 * choice for text on dark) or the first lighter one that reads, else the
 * darkest that does; failing all, the middle shade pushed toward the text
 * colour until it reads.
 */
function pick(shades: readonly string[], dark: boolean, backgrounds: string[], fg: string) {
  const order = dark ? [4, 3, 2, 1, 0, 5, 6, 7, 8, 9].map((i) => shades[i]) : shades;
  return order.find((s) => parseHex(s) && readsOn(s, backgrounds)) ??
    untilReadable(shades[dark ? 4 : 7], fg, backgrounds);
}

/** The colour text on `background` is drawn in: black or white, whichever reads better. */
const textOn = (background: string, dark: string, light: string) =>
  contrast(dark, background) >= contrast(light, background) ? dark : light;

/** The custom properties `theme` draws a page with. */
export function themeVariables(theme: Theme): ThemeVariables {
  const dark = theme.colorScheme === "dark";
  const bg = theme.mainBackgroundColor;
  if (dark) {
    const d = palette(theme, "dark");
    const card = d[7];
    const grounds = [card, bg];
    const fg = untilReadable(d[0], "#ffffff", grounds);
    const accent = pick(palette(theme, theme.primaryColor), true, grounds, fg);
    return {
      bg,
      card,
      fg,
      muted: untilReadable(d[2], fg, grounds),
      line: d[4],
      accent,
      "accent-fg": textOn(accent, d[9], "#ffffff"),
      danger: pick(MANTINE_COLORS.red, true, grounds, fg),
      ok: pick(MANTINE_COLORS.green, true, grounds, fg),
    };
  }
  const g = palette(theme, "gray");
  const card = theme.colors.gray ? g[0] : "#ffffff";
  const grounds = [card, bg];
  const fg = untilReadable(g[9], "#000000", grounds);
  const accent = pick(palette(theme, theme.primaryColor), false, grounds, fg);
  return {
    bg,
    card,
    fg,
    muted: untilReadable(g[7], fg, grounds),
    line: g[4],
    accent,
    "accent-fg": textOn(accent, fg, "#ffffff"),
    danger: pick(MANTINE_COLORS.red, false, grounds, fg),
    ok: pick(MANTINE_COLORS.green, false, grounds, fg),
  };
}

function declarations(theme: Theme): string {
  const vars = Object.entries(themeVariables(theme)).map(([k, v]) => `--${k}:${v}`);
  return `color-scheme:${theme.colorScheme};${vars.join(";")}`;
}

/** The stylesheet of `themes` (their ids are safe in a quoted selector: `[\w.:-]`). */
export function themeStylesheet(themes: readonly Theme[]): string {
  const rules: string[] = ["/* Ferry's themes: generated from the theme list. */"];
  const dark: string[] = [], light: string[] = [];
  for (const theme of themes) {
    const id = theme.id.replace(/[^\w.:-]/g, "");
    const body = declarations(theme);
    rules.push(`:root[data-theme="${id}"]{${body}}`);
    (theme.colorScheme === "dark" ? dark : light).push(
      `:root[data-theme-${theme.colorScheme}="${id}"]:not([data-theme]){${body}}`,
    );
    // A dark theme chosen for light mode (or the reverse) still applies.
    (theme.colorScheme === "dark" ? light : dark).push(
      `:root[data-theme-${theme.colorScheme === "dark" ? "light" : "dark"}="${id}"]` +
        `:not([data-theme]){${body}}`,
    );
  }
  rules.push(`@media (prefers-color-scheme: dark){${dark.join("")}}`);
  rules.push(`@media (prefers-color-scheme: light){${light.join("")}}`);
  return rules.join("\n") + "\n";
}

/** The stylesheet, ready to send, under a name that carries its content hash. */
export interface ThemeAsset {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  hashedName: string;
}

const built = new WeakMap<readonly Theme[], ThemeAsset>();
const NO_CUSTOM: readonly Theme[] = [];

/** The themes stylesheet for the built-in themes and `custom` (made once per list). */
export function themeAsset(custom: readonly Theme[] = NO_CUSTOM): ThemeAsset {
  let asset = built.get(custom);
  if (!asset) {
    const body = new TextEncoder().encode(themeStylesheet(allThemes(custom)));
    const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
    asset = {
      body,
      gzip: new Uint8Array(gzipSync(body, { level: 9 })),
      hashedName: `themes.${hash}.css`,
    };
    built.set(custom, asset);
  }
  return asset;
}

/** The attributes `<html>` carries for `resolved`. */
export function themeAttributes(resolved: ResolvedTheme): Record<string, string> {
  return "fixed" in resolved
    ? { "data-theme": resolved.fixed.id }
    : { "data-theme-dark": resolved.dark.id, "data-theme-light": resolved.light.id };
}
