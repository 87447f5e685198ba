/**
 * TeX and asciinema recordings read as text, without a library and without
 * the DOM (tested alone): the formulas of a `.tex` file within the bounds
 * KaTeX is given them in (`tex.ts`), and whether a text is an asciicast
 * (`asciicast.ts`).
 */

/** The most characters given to KaTeX. */
export const TEX_LIMIT = 64 * 1024;
/** The most formulas typeset from one file. */
export const TEX_BLOCKS = 200;

/** The formulas of `tex`: its paragraphs, trimmed; throws when there are too many or it is too long. */
export function texBlocks(tex: string): string[] {
  if (tex.length > TEX_LIMIT) {
    throw new Error(`It is too long to typeset here (over ${TEX_LIMIT / 1024} KiB).`);
  }
  const blocks = tex.split(/\n[ \t]*\n/).map((b) => b.trim()).filter((b) => b !== "");
  if (blocks.length > TEX_BLOCKS) {
    throw new Error(`It has too many formulas to typeset here (over ${TEX_BLOCKS}).`);
  }
  return blocks;
}

/** Whether `text` starts as an asciicast does: a JSON header (v2, v3) or document (v1) with its version. */
export function isCastText(text: string): boolean {
  const first = text.slice(0, text.indexOf("\n") + 1 || text.length).trim();
  for (const candidate of [first, text]) {
    try {
      const version = (JSON.parse(candidate) as { version?: unknown }).version;
      if (version === 1 || version === 2 || version === 3) return true;
    } catch {
      // Not JSON: try the next reading.
    }
  }
  return false;
}
