/// <reference lib="dom" />
/**
 * A text file's or a recording's public page (`/view/<name>`), bundled as
 * `text_view.js` and loaded by that page only: the start of a text file,
 * fetched from `/raw/…` (which counts the view and checks the password),
 * shown highlighted with line numbers, as rendered Markdown or typeset TeX,
 * with a button that copies the text; or an asciinema recording, read whole
 * and played. highlight.js, marked, DOMPurify, KaTeX and asciinema's player
 * come in chunks of their own as needed.
 */
import { showCast } from "./text/asciicast.ts";
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

/** Reads the recording whole (the server sent it only when within the page's limit) and plays it. */
async function play(element: HTMLElement): Promise<void> {
  const response = await fetch(element.dataset.src!, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`The server answered ${response.status}`);
  await showCast(element, await response.text());
  element.setAttribute("aria-busy", "false");
}

/** Shows what went wrong in place of the file. */
function failed(element: HTMLElement) {
  return (error: Error) => {
    element.textContent = error.message;
    element.setAttribute("role", "alert");
  };
}

if (target) load(target).catch(failed(target));
const player = document.getElementById("cast-player");
if (player) play(player).catch(failed(player));
