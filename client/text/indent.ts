/**
 * Tab and Shift+Tab in a code box: a caret gets two spaces; a selection over
 * lines indents (or outdents) each of them. Pure, so it is tested alone.
 */

/** What an edit leaves: the text and the selection. */
export interface Edited {
  text: string;
  start: number;
  end: number;
}

const INDENT = "  ";

/** `text` with the selection `start`–`end` indented (or outdented with `outdent`). */
export function indent(text: string, start: number, end: number, outdent = false): Edited {
  const multiline = text.slice(start, end).includes("\n");
  if (!multiline && !outdent) {
    return {
      text: text.slice(0, start) + INDENT + text.slice(end),
      start: start + INDENT.length,
      end: start + INDENT.length,
    };
  }
  const first = text.lastIndexOf("\n", start - 1) + 1;
  const lines = text.slice(first, end).split("\n");
  let removedFirst = 0;
  const changed = lines.map((line, i) => {
    if (!outdent) return INDENT + line;
    const cut = line.startsWith(INDENT) ? INDENT.length : line.startsWith(" ") ? 1 : 0;
    if (i === 0) removedFirst = cut;
    return line.slice(cut);
  });
  const joined = changed.join("\n");
  const delta = joined.length - (end - first);
  return {
    text: text.slice(0, first) + joined + text.slice(end),
    start: outdent ? Math.max(first, start - removedFirst) : start + INDENT.length,
    end: end + delta,
  };
}
