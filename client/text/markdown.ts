/// <reference lib="dom" />
/**
 * Markdown for people's text files, in the browser: rendered by marked, raw
 * HTML in the source shown as text (as the server's own Markdown pages do),
 * then sanitised by DOMPurify (no `<script>`, no `on…` attribute, no
 * `javascript:` or `data:` address, no `style`, which the CSP refuses anyway).
 * Both load when a page first shows Markdown.
 */

const hooked = new WeakSet<object>();

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `markdown` as sanitised HTML. */
export async function renderMarkdown(markdown: string): Promise<string> {
  const [{ Marked }, { default: DOMPurify }] = await Promise.all([
    import("marked"),
    import("dompurify"),
  ]);
  const html = new Marked({
    gfm: true,
    async: false,
    renderer: { html: (token) => escapeHtml(token.text) },
  }).parse(markdown) as string;
  if (!hooked.has(DOMPurify)) {
    hooked.add(DOMPurify);
    // An image its author left without a description is read as decoration; a link that
    // leaves the site opens without giving it a handle on this page.
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "IMG" && !node.hasAttribute("alt")) node.setAttribute("alt", "");
      if (node.tagName === "A" && /^https?:/i.test(node.getAttribute("href") ?? "")) {
        node.setAttribute("rel", "noopener noreferrer");
      }
    });
  }
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
    FORBID_ATTR: ["style"],
  });
}
