/**
 * The styles and fonts of the libraries the pages load on demand, served by
 * Ferry itself (the CSP allows styles and fonts from this origin only; no
 * page reaches another host): KaTeX's stylesheet and its twenty fonts
 * (WOFF2 only, which every browser Ferry supports reads; the stylesheet is
 * rewritten to name them by their hashed paths), and asciinema's player's
 * stylesheet. Each is read from its npm package on the first ask, so a
 * server that never shows a formula or a recording never holds them. The
 * stylesheets answer at their plain names (`katex.css`,
 * `asciinema-player.css`), which the pages' script links, uncached; the
 * fonts at names carrying their content's hash, cached for good.
 */
import { type Asset, asset } from "./assets.ts";

const CSS = "text/css; charset=utf-8";

/** KaTeX's fonts, each imported by a literal specifier so that a bundle or `deno compile` carries it. */
const KATEX_FONTS: [string, () => Promise<{ default: Uint8Array<ArrayBuffer> }>][] = [
  [
    "KaTeX_AMS-Regular",
    () => import("katex/dist/fonts/KaTeX_AMS-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Caligraphic-Bold",
    () => import("katex/dist/fonts/KaTeX_Caligraphic-Bold.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Caligraphic-Regular",
    () => import("katex/dist/fonts/KaTeX_Caligraphic-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Fraktur-Bold",
    () => import("katex/dist/fonts/KaTeX_Fraktur-Bold.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Fraktur-Regular",
    () => import("katex/dist/fonts/KaTeX_Fraktur-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Main-Bold",
    () => import("katex/dist/fonts/KaTeX_Main-Bold.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Main-BoldItalic",
    () => import("katex/dist/fonts/KaTeX_Main-BoldItalic.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Main-Italic",
    () => import("katex/dist/fonts/KaTeX_Main-Italic.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Main-Regular",
    () => import("katex/dist/fonts/KaTeX_Main-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Math-BoldItalic",
    () => import("katex/dist/fonts/KaTeX_Math-BoldItalic.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Math-Italic",
    () => import("katex/dist/fonts/KaTeX_Math-Italic.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_SansSerif-Bold",
    () => import("katex/dist/fonts/KaTeX_SansSerif-Bold.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_SansSerif-Italic",
    () => import("katex/dist/fonts/KaTeX_SansSerif-Italic.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_SansSerif-Regular",
    () => import("katex/dist/fonts/KaTeX_SansSerif-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Script-Regular",
    () => import("katex/dist/fonts/KaTeX_Script-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Size1-Regular",
    () => import("katex/dist/fonts/KaTeX_Size1-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Size2-Regular",
    () => import("katex/dist/fonts/KaTeX_Size2-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Size3-Regular",
    () => import("katex/dist/fonts/KaTeX_Size3-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Size4-Regular",
    () => import("katex/dist/fonts/KaTeX_Size4-Regular.woff2", { with: { type: "bytes" } }),
  ],
  [
    "KaTeX_Typewriter-Regular",
    () => import("katex/dist/fonts/KaTeX_Typewriter-Regular.woff2", { with: { type: "bytes" } }),
  ],
];

/**
 * KaTeX's stylesheet with each font's `src` reduced to its WOFF2 file at
 * `paths[name]` (a font it does not know keeps what it had).
 */
export function katexStylesheet(css: string, paths: Map<string, string>): string {
  return css.replace(
    /src:url\(fonts\/([\w-]+)\.woff2\) format\("woff2"\)(?:,url\(fonts\/[\w.-]+\) format\("\w+"\))*/g,
    (whole, name: string) => {
      const path = paths.get(name);
      return path ? `src:url(${path}) format("woff2")` : whole;
    },
  );
}

/** The files, by plain name (stylesheets) and hashed name (fonts), and whether each is for good. */
type Vendor = Map<string, { asset: Asset; immutable: boolean }>;

let vendor: Promise<Vendor> | undefined;

function load(): Promise<Vendor> {
  return vendor ??= (async () => {
    const [katexCss, playerCss, ...fonts] = await Promise.all([
      import("katex/dist/katex.min.css", { with: { type: "text" } }),
      import("asciinema-player/dist/bundle/asciinema-player.css", { with: { type: "text" } }),
      ...KATEX_FONTS.map(([, font]) => font()),
    ]);
    const files: Vendor = new Map();
    const paths = new Map<string, string>();
    KATEX_FONTS.forEach(([name], i) => {
      const [, font] = asset(`${name}.woff2`, "font/woff2", fonts[i].default);
      files.set(font.hashedName, { asset: font, immutable: true });
      paths.set(name, `/assets/${font.hashedName}`);
    });
    const [, katex] = asset("katex.css", CSS, katexStylesheet(katexCss.default, paths));
    files.set("katex.css", { asset: katex, immutable: false });
    const [, player] = asset("asciinema-player.css", CSS, playerCss.default);
    files.set("asciinema-player.css", { asset: player, immutable: false });
    return files;
  })().catch((error) => {
    vendor = undefined;
    throw error;
  });
}

/** The vendor file asked for as `file`, and whether it may be cached for good; `null` when none. */
export async function findVendorAsset(
  file: string,
): Promise<{ asset: Asset; immutable: boolean } | null> {
  if (!/^(katex\.css|asciinema-player\.css|KaTeX_[\w-]+\.[0-9a-f]{12}\.woff2)$/.test(file)) {
    return null;
  }
  return (await load()).get(file) ?? null;
}
