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
  /** `filesMaxExpiration` in ms: the longest expiry an upload may ask for (`null`: none). */
  maxExpirationMs?: number | null;
  /** What the page is about, where its address names it (a public folder's id). */
  id?: string;
  /** The signed-in user (dashboard pages). */
  user?: {
    id: string;
    role: Role;
    /** The roles it may give a user it creates or changes (spec §4.1 rule 1). */
    assigns: Role[];
    /** The roles of the users it may change and delete (spec §4.1 rule 2). */
    manages: Role[];
    /** Whether the account has a password, which its credential changes then ask for. */
    hasPassword?: boolean;
  };
  /** `featuresMetricsShowUserSpecific`: whether statistics include per-user numbers. */
  metricsPerUser?: boolean;
  /** The user's "warn on deletion" preference: whether deletions ask first. */
  warnDeletion?: boolean;
  /** The user's "Disable media preview": type icons instead of pictures in file lists. */
  disableMediaPreview?: boolean;
}

/** A user's role, lowest first. */
export const ROLES = ["USER", "ADMIN", "SUPERADMIN"] as const;
/** A user's role. */
export type Role = typeof ROLES[number];

/**
 * Whether the signed-in user of the page on screen is an administrator, from
 * the configuration on `#app`, for components deep in a page that is not
 * handed it (the visits views, which link administrators to the settings).
 */
export function administratorOnScreen(): boolean {
  const root = document.getElementById("app");
  const role = root ? readConfig(root).user?.role : undefined;
  return role !== undefined && role !== "USER";
}

/** Reads the configuration the server put on `element`. */
export function readConfig(element: HTMLElement): PageConfig {
  return JSON.parse(element.dataset.config ?? "{}") as PageConfig;
}
