/**
 * What a text is, from its file's name and type, without loading a library:
 * its highlight.js language (matched against highlight.js's own ids and
 * aliases, `languages.ts`; never guessed from content, which is slow on big
 * files), the extension a language's file is given, whether it is Markdown.
 * No DOM: tested alone.
 */
import { LANGUAGES } from "./languages.ts";

/** A language id or alias, lower case, to its id. */
const BY_ALIAS = new Map<string, string>();
for (const [id, , aliases] of LANGUAGES) {
  for (const alias of [id, ...aliases]) {
    if (!BY_ALIAS.has(alias.toLowerCase())) BY_ALIAS.set(alias.toLowerCase(), id);
  }
}
const IN_COMMON = new Set(LANGUAGES.filter((row) => row[3]).map((row) => row[0]));
/** Extensions named differently from every alias of their language. */
const EXTRA: Record<string, string> = { mjs: "javascript", cjs: "javascript", svg: "xml" };
/** Languages that are plain text: shown without highlighting. */
const PLAIN = new Set(["plaintext", "text", "txt"]);

/** The id of the language called `name` (an id or an alias), or `null`. */
export function languageId(name: string): string | null {
  const key = name.trim().toLowerCase();
  if (PLAIN.has(key)) return null;
  return BY_ALIAS.get(key) ?? EXTRA[key] ?? null;
}

/** The language of a file called `name` of MIME `type`, or `null` for plain text. */
export function languageOf(name: string, type: string): string | null {
  const extension = name.includes(".") ? name.split(".").pop()! : "";
  const subtype = (type.split(";")[0].split("/")[1] ?? "").replace(/^x-/, "");
  return (extension && languageId(extension)) || (subtype && languageId(subtype)) || null;
}

/** The extension a file in `language` is given (its shortest alias, or its id). */
export function extensionOf(language: string): string {
  const row = LANGUAGES.find((r) => r[0] === language);
  if (!row) return "txt";
  const names = [...row[2], row[0]].filter((n) => /^[a-z0-9+_-]+$/i.test(n));
  return names.sort((a, b) => a.length - b.length)[0] ?? "txt";
}

/** Whether `language` is in highlight.js's common build (the smaller chunk). */
export function inCommonBuild(language: string): boolean {
  return IN_COMMON.has(language);
}

/** Whether a file called `name` of `type` is Markdown. */
export function isMarkdown(name: string, type: string): boolean {
  return /\.(md|markdown|mdown|mkd)$/i.test(name) || /^text\/(x-)?markdown\b/.test(type);
}

/** The types of TeX sources (besides a `text/*` file named `.tex`). */
const TEX_TYPES = /^application\/x-(la)?tex\b/;

/** Whether a file called `name` of `type` is TeX, typeset by KaTeX (Zipline: a `.tex` text). */
export function isTex(name: string, type: string): boolean {
  return /\.tex$/i.test(name) || TEX_TYPES.test(type);
}

/** Whether a file called `name` of `type` is an asciinema recording (asciicast), as Zipline tells. */
export function isAsciicast(name: string, type: string): boolean {
  return /^application\/x-asciicast\b/.test(type) || /\.cast$/i.test(name);
}
