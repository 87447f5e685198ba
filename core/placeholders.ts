/**
 * Zipline's placeholders (reference §9.3) in the text people write for what
 * Ferry sends or shows on their behalf: chat messages, a file page's card and
 * its custom content. `{type.prop}` is filled from the values given; a name
 * that has no value stays as written, never an error. Zipline's modifiers
 * (`{file.size::bytes}`) are not read.
 */

/** `{type.prop}`: a placeholder, as Zipline writes them. */
const PLACEHOLDER = /\{([a-zA-Z]+\.[a-zA-Z]+)\}/g;

/**
 * `text` with each placeholder that `values` names filled in, passed through
 * `encode` first (for text in a syntax of its own, such as Markdown); any
 * other left as it is.
 */
export function fillPlaceholders(
  text: string,
  values: Record<string, string>,
  encode: (value: string) => string = (value) => value,
): string {
  return text.replace(
    PLACEHOLDER,
    (whole, name: string) => Object.hasOwn(values, name) ? encode(values[name]) : whole,
  );
}

/**
 * `text` with Markdown's punctuation backslash-escaped, so a value filled
 * into Markdown (a file's name) reads as written rather than as emphasis,
 * a link or raw HTML.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]()#!|<>~&]/g, "\\$&");
}
