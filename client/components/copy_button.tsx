/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** A button that copies a text (a link) to the clipboard and says so. */
import { useState } from "preact/hooks";
import { Icon } from "../icons.tsx";

/** Copies `text`; `label` names what is copied, for screen readers and tests. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" class="icon-button" onClick={copy} aria-label={label} title={label}>
      <Icon name={copied ? "check" : "copy"} />
      <span class="visually-hidden" role="status">{copied ? "Copied" : ""}</span>
    </button>
  );
}
