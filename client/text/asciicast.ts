/// <reference lib="dom" />
/**
 * An asciinema recording (asciicast v2; v1 and v3 too) played by asciinema's
 * player, loaded with its stylesheet when a page first shows one. The player
 * is given the recording's text, which the page read from Ferry; never an
 * address, so nothing a recording or its uploader names is fetched (its
 * `audioUrl` and `poster` options are not set from it). Its terminal is
 * WebAssembly, which the pages that may play one allow
 * (`'wasm-unsafe-eval'`).
 */
import { isCastText } from "./formats.ts";
import { linkStyle } from "./style.ts";

/** Plays the recording `cast` in `target`; throws when it is no asciicast. */
export async function showCast(target: HTMLElement, cast: string): Promise<void> {
  if (!isCastText(cast)) throw new Error("This is not an asciinema recording.");
  const [{ create }] = await Promise.all([
    import("asciinema-player"),
    linkStyle("/assets/asciinema-player.css"),
  ]);
  target.replaceChildren();
  create({ data: cast }, target, {
    fit: "width",
    idleTimeLimit: 2,
    preload: true,
    poster: "npt:0:1",
    controls: true,
  });
}
