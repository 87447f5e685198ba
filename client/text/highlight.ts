/// <reference lib="dom" />
/**
 * Syntax highlighting, loaded when a page first shows code: highlight.js's
 * common build (36 languages, ~54 KB compressed), or its full build for a
 * rarer language. The output escapes the text; only highlight.js's
 * `<span class="hljs-…">` markup is added.
 */
import { inCommonBuild } from "./kind.ts";

/** `text` as highlighted HTML in `language` (an id of {@link LANGUAGES}). */
export async function highlight(text: string, language: string): Promise<string> {
  const hljs = inCommonBuild(language)
    ? (await import("highlight.js/lib/common")).default
    : (await import("highlight.js")).default;
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}
