/// <reference lib="dom" />
/**
 * TeX typeset by KaTeX, loaded (with its stylesheet and fonts, served by
 * Ferry) when a page first shows a `.tex` file: each paragraph of the file
 * (blocks between blank lines) one displayed formula, as Zipline renders a
 * `.tex` file whole. People's files are untrusted: `trust` is off (no
 * `\href`, `\url`, `\includegraphics`, `\html…`), macro expansion is bounded
 * (`maxExpand`), so are sizes (`maxSize`), and KaTeX, whose time grows with
 * its input, is given at most `TEX_LIMIT` characters in at most `TEX_BLOCKS`
 * formulas (`formats.ts`; a longer file is shown as code). KaTeX builds the
 * DOM itself (`render`), setting sizes as style properties, which the pages'
 * CSP allows where its HTML string's `style` attributes would be refused.
 */
import { texBlocks } from "./formats.ts";
import { linkStyle } from "./style.ts";

/** KaTeX's options for untrusted TeX. */
export const TEX_OPTIONS = {
  displayMode: true,
  throwOnError: true,
  trust: false,
  strict: "ignore",
  maxSize: 20,
  maxExpand: 500,
  output: "htmlAndMathml",
} as const;

/** Fills `target` with `tex` typeset; throws KaTeX's error for TeX it cannot read. */
export async function showTex(target: HTMLElement, tex: string): Promise<void> {
  const blocks = texBlocks(tex);
  const [{ default: katex }] = await Promise.all([
    import("katex"),
    linkStyle("/assets/katex.css"),
  ]);
  const typeset = blocks.map((block) => {
    const element = document.createElement("div");
    element.className = "tex-block";
    katex.render(block, element, TEX_OPTIONS);
    return element;
  });
  target.className = "tex-view";
  target.replaceChildren(...typeset);
}
