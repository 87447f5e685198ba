/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A text in a dashboard page (the text upload's preview, a file's panel):
 * highlighted with line numbers, or Markdown rendered, by `text/code.ts`,
 * whose libraries load the first time a page shows one.
 */
import { useEffect, useRef } from "preact/hooks";
import { showCode, showText, type TextSource } from "../text/code.ts";

/** Shows `source`; `as` forces code (`"code"`) or lets Markdown render (`"auto"`). */
export function TextView(
  { source, as = "auto", label }: { source: TextSource; as?: "auto" | "code"; label: string },
) {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = target.current;
    if (!element) return;
    (as === "code" ? showCode : showText)(element, source).catch((error: Error) => {
      element.textContent = error.message;
    });
  }, [source.text, source.name, source.type, source.language, as]);
  return (
    <div class="text-view-frame" role="region" aria-label={label}>
      <div ref={target}>Loading…</div>
    </div>
  );
}
