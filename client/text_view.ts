/// <reference lib="dom" />
/**
 * A text file's public page (`/view/<name>`), bundled as `text_view.js` and
 * loaded by that page only: the start of the file, fetched from `/raw/…`
 * (which counts the view and checks the password), shown highlighted with
 * line numbers, or as rendered Markdown, with a button that copies the text.
 * highlight.js, marked and DOMPurify come in chunks of their own as needed.
 */
import { showText } from "./text/code.ts";

const target = document.getElementById("text-preview");
const copy = document.getElementById("copy-text") as HTMLButtonElement | null;
const status = document.getElementById("copy-status");

/** Loads the file's start and shows it. */
async function load(element: HTMLElement): Promise<void> {
  const limit = Number(element.dataset.limit);
  const response = await fetch(element.dataset.src!, {
    credentials: "same-origin",
    headers: { range: `bytes=0-${limit - 1}` },
  });
  if (!response.ok) throw new Error(`The server answered ${response.status}`);
  const total = Number(response.headers.get("content-range")?.split("/")[1] ?? 0);
  const text = await response.text();
  const shown = total > limit ? `${text}\n…` : text;
  await showText(element, {
    text: shown,
    name: element.dataset.name ?? "",
    type: element.dataset.type ?? "text/plain",
  });
  element.setAttribute("aria-busy", "false");
  if (copy) {
    copy.disabled = false;
    copy.addEventListener("click", async () => {
      await navigator.clipboard.writeText(text);
      if (status) status.textContent = "Copied";
      setTimeout(() => status && (status.textContent = ""), 1500);
    });
  }
}

if (target) {
  load(target).catch((error: Error) => {
    target.textContent = error.message;
    target.setAttribute("role", "alert");
  });
}
