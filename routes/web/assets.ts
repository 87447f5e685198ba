/**
 * The pages' static files, served by Ferry itself so the dashboard works
 * offline: the base stylesheet and script, the icon, and the dashboard's bundle
 * (`deno task bundle` builds `assets/dashboard.js` from `client/`; the built
 * file is committed, so `deno task start`, `deno task compile` and the Docker
 * image serve it as it is, and a test fails when it is stale).
 *
 * Each file is reached at a name carrying a hash of its content
 * (`/assets/dashboard.3f2a9c01.js`), cached for a year, so a new release is
 * fetched at once and an unchanged one never again; the plain name still
 * answers, uncached. A gzip copy is made once at start for clients that
 * accept it. The dashboard's code-split chunks (2 MB of text) are imported
 * on the first ask of one ({@link loadChunks}): a server whose dashboard is
 * not opened does not hold them (some 8 MiB, bench/results/memory.md).
 */
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import baseScript from "./assets/ferry.js" with { type: "text" };
import baseStyle from "./assets/ferry.css" with { type: "text" };
import dashboardScript from "./assets/dashboard.js" with { type: "text" };
import dashboardStyle from "./assets/dashboard.css" with { type: "text" };
import textViewScript from "./assets/text_view.js" with { type: "text" };
import icon from "./assets/icon.svg" with { type: "text" };

/** One static file, ready to send. */
export interface Asset {
  type: string;
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  /** The name with its content hash, under which it may be cached for good. */
  hashedName: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

/**
 * The asset `name` of `content` (text, or bytes); `named` when its name
 * already carries a hash of its content (the bundle's chunks, which the
 * entries import by that name).
 */
export function asset(
  name: string,
  type: string,
  content: string | Uint8Array<ArrayBuffer>,
  named = false,
): [string, Asset] {
  const body = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  const dot = name.lastIndexOf(".");
  const hashedName = named ? name : `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
  return [name, { type, body, gzip: new Uint8Array(gzipSync(body, { level: 9 })), hashedName }];
}

const BY_NAME = new Map([
  asset("ferry.js", JS, baseScript),
  asset("ferry.css", CSS, baseStyle),
  asset("dashboard.js", JS, dashboardScript),
  asset("text_view.js", JS, textViewScript),
  asset("dashboard.css", CSS, dashboardStyle),
  asset("icon.svg", "image/svg+xml", icon),
]);
const BY_HASHED_NAME = new Map([...BY_NAME.values()].map((a) => [a.hashedName, a]));

/** The path at which the page links the asset `name` (`dashboard.js` → `/assets/dashboard.<hash>.js`). */
export function assetPath(name: string): string {
  const found = BY_NAME.get(name);
  if (!found) throw new Error(`no asset named ${name}`);
  return `/assets/${found.hashedName}`;
}

/**
 * The asset asked for as `file`, and whether the name was the hashed one
 * (cache it for good); a chunk only once {@link loadChunks} has loaded them.
 */
export function findAsset(file: string): { asset: Asset; immutable: boolean } | null {
  const hashed = BY_HASHED_NAME.get(file);
  if (hashed) return { asset: hashed, immutable: true };
  const plain = BY_NAME.get(file);
  return plain ? { asset: plain, immutable: false } : null;
}

/** A chunk's name: esbuild's `[name]-[hash].js`. */
const CHUNK_NAME = /^[\w.-]+-[A-Z0-9]{8}\.js$/;

let chunks: Promise<void> | null = null;

/**
 * Imports the dashboard's chunks (once) and adds them to the assets. Their
 * names carry their hash already. A literal specifier: bundles and `deno
 * compile` carry them.
 */
export function loadChunks(): Promise<void> {
  chunks ??= import("./assets/chunks/mod.ts").then(({ CHUNKS }) => {
    for (const [name, text] of CHUNKS) {
      const [, loaded] = asset(name, JS, text, true);
      BY_NAME.set(name, loaded);
      BY_HASHED_NAME.set(loaded.hashedName, loaded);
    }
  });
  return chunks;
}

/** {@link findAsset}, the chunks loaded first when `file` is named like one. */
export async function findAnyAsset(
  file: string,
): Promise<{ asset: Asset; immutable: boolean } | null> {
  if (CHUNK_NAME.test(file)) await loadChunks();
  return findAsset(file);
}
