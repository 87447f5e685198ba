/// <reference lib="dom" />
/**
 * A text shown as a reader expects it, without a framework (the public file
 * page loads this alone): code highlighted with a gutter of line numbers,
 * Markdown rendered, TeX typeset by KaTeX (or, when KaTeX cannot read it,
 * highlighted under a note saying why), anything else as plain text with
 * line numbers.
 */
import { highlight } from "./highlight.ts";
import { isMarkdown, isTex, languageOf } from "./kind.ts";
import { renderMarkdown } from "./markdown.ts";
import { showTex } from "./tex.ts";

/** `text` with `&`, `<`, `>` escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>]/g, (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;");
}

/** What to show: the text, and the name and type that say what it is. */
export interface TextSource {
  text: string;
  name: string;
  type: string;
  /** A language chosen by the person (overrides the name's). */
  language?: string | null;
}

/** Fills `target` with `text` as code: a line-number gutter beside the (highlighted) lines. */
export async function showCode(target: HTMLElement, source: TextSource): Promise<void> {
  const language = source.language !== undefined
    ? source.language
    : languageOf(source.name, source.type);
  const body = language ? await highlight(source.text, language) : escapeHtml(source.text);
  const lines = source.text.split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  const numbers = lines.map((_, i) => i + 1).join("\n");
  target.className = "code-view";
  target.innerHTML = `<pre class="line-numbers" aria-hidden="true">${numbers}</pre>` +
    `<pre class="code hljs" tabindex="0"${
      language ? ` data-language="${escapeHtml(language)}"` : ""
    }><code>${body}</code></pre>`;
}

/** Fills `target` with `markdown` rendered and sanitised. */
export async function showMarkdown(target: HTMLElement, markdown: string): Promise<void> {
  target.className = "markdown-view";
  target.innerHTML = await renderMarkdown(markdown);
}

/** Fills `target` with `source` typeset by KaTeX, or as LaTeX code under the reason it is not. */
export async function showTexOrCode(target: HTMLElement, source: TextSource): Promise<void> {
  try {
    await showTex(target, source.text);
  } catch (error) {
    const note = document.createElement("p");
    note.className = "tex-error";
    note.textContent = `KaTeX could not typeset this file: ${(error as Error).message}`;
    const code = document.createElement("div");
    await showCode(code, { ...source, language: "latex" });
    target.className = "tex-fallback";
    target.replaceChildren(note, code);
  }
}

/** Fills `target` as the text's kind asks: Markdown rendered, TeX typeset, anything else as code. */
export async function showText(target: HTMLElement, source: TextSource): Promise<void> {
  const is = (language: string, test: (name: string, type: string) => boolean) =>
    source.language === language ||
    (source.language === undefined && test(source.name, source.type));
  if (is("markdown", isMarkdown)) await showMarkdown(target, source.text);
  else if (is("latex", isTex)) await showTexOrCode(target, source);
  else await showCode(target, source);
}
