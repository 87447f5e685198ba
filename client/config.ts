/// <reference lib="dom" />
/** What the server tells the dashboard in the page it renders (`data-config` on `#app`). */

/** The page's configuration. */
export interface PageConfig {
  /** Files larger than this go in chunks; `null` when chunked uploads are off. */
  chunkSize: number | null;
  /** The name formats a user may choose, the default first. */
  formats: string[];
  /** Domains a link may be given (besides this one). */
  domains: string[];
  /** The route short URLs are served under (`urlsRoute`). */
  urlsRoute: string;
  /** The site's title (`websiteTitle`). */
  site: string;
  /** Whether the signed-in user may manage invites (an administrator, with invites on). */
  invites?: boolean;
  /** What the page is about, where its address names it (a public folder's id). */
  id?: string;
}

/** Reads the configuration the server put on `element`. */
export function readConfig(element: HTMLElement): PageConfig {
  return JSON.parse(element.dataset.config ?? "{}") as PageConfig;
}
