/// <reference lib="dom" />
/**
 * A library's stylesheet, linked when a page first needs it (KaTeX's,
 * asciinema's player's): served by Ferry under `/assets/`, which the pages'
 * CSP allows (`style-src 'self'`).
 */

const linked = new Map<string, Promise<void>>();

/** Links the stylesheet at `href` once per page; resolves when it has loaded. */
export function linkStyle(href: string): Promise<void> {
  let loaded = linked.get(href);
  if (!loaded) {
    loaded = new Promise<void>((resolve, reject) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = href;
      link.addEventListener("load", () => resolve());
      link.addEventListener(
        "error",
        () => reject(new Error(`The stylesheet ${href} did not load`)),
      );
      document.head.append(link);
    });
    linked.set(href, loaded);
  }
  return loaded;
}
