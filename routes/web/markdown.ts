/**
 * Markdown to HTML for the pages the server renders (the terms of service,
 * the help page), with marked and no DOM: raw HTML in the source is never
 * passed through but shown as text (so no `<script>`, no `on…` handler, no
 * `style`), and a link or image keeps its address only when it is http(s),
 * `mailto:`, or on this site (a path or a `#fragment`); any other address
 * (`javascript:`, `data:`, …) is dropped. Every text is escaped by marked.
 */
import { Marked, type Tokens } from "marked";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Where a relative link (`docs/x.md`) leads, or `null` to show its text only. */
export type RelativeLinks = (href: string) => string | null;

/**
 * `href` when it is safe to link to, else `null`: http(s), `mailto:`, a path
 * or fragment of this site, or a relative address (through `relative`).
 */
export function safeHref(href: string, relative: RelativeLinks = (h) => h): string | null {
  const trimmed = href.trim();
  if (/^(https?:|mailto:)/i.test(trimmed)) return trimmed;
  if (trimmed.startsWith("//")) return null;
  if (/^[/#?]/.test(trimmed)) return trimmed;
  const control = [...trimmed].some((c) => c.charCodeAt(0) < 32);
  if (/^[\w.+-]*:/.test(trimmed) || control || trimmed.includes("\\")) return null;
  return relative(trimmed);
}

function parser(relative?: RelativeLinks) {
  return new Marked({
    gfm: true,
    async: false,
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag) {
        return escapeHtml(token.text);
      },
      link(
        this: { parser: { parseInline(tokens: Tokens.Generic[]): string } },
        token: Tokens.Link,
      ) {
        const text = this.parser.parseInline(token.tokens);
        const href = safeHref(token.href, relative);
        if (href === null) return text;
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
        const rel = /^https?:/i.test(href) ? ' rel="noopener noreferrer"' : "";
        return `<a href="${escapeHtml(href)}"${title}${rel}>${text}</a>`;
      },
      code(token: Tokens.Code) {
        // Focusable, so a code block wider than the page scrolls from the keyboard too.
        const lang = token.lang?.match(/^\S+/)?.[0];
        const type = lang ? ` class="language-${escapeHtml(lang)}"` : "";
        const text = token.escaped ? token.text : escapeHtml(token.text);
        return `<pre tabindex="0"><code${type}>${text}\n</code></pre>\n`;
      },
      image(token: Tokens.Image) {
        const src = safeHref(token.href, relative);
        if (src === null) return escapeHtml(token.text);
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
        return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text)}"${title}>`;
      },
    },
  });
}

const plain = parser();

/** `markdown` as safe HTML; `relative` maps relative links (by default they stay as written). */
export function renderMarkdown(markdown: string, relative?: RelativeLinks): string {
  return (relative ? parser(relative) : plain).parse(markdown) as string;
}
