/**
 * Short URLs. A URL's code and its vanity share one namespace with every
 * other URL's code and vanity, so a name resolves to at most one URL; the
 * store enforces it, and the per-user count behind `maxUrls`, atomically.
 */

/** A short URL as stored. `password` is an argon2 PHC hash and never leaves the server. */
export interface UrlRecord {
  id: string;
  code: string;
  vanity: string | null;
  destination: string;
  views: number;
  maxViews: number | null;
  password: string | null;
  enabled: boolean;
  /** `null` once its owner was deleted without its content. */
  userId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** When it stops redirecting (410 after it); `null`: never. */
  expiresAt: Date | null;
  /** Other destinations by the visitor's device class; `null`: none. */
  deviceDestinations: DeviceDestinations | null;
  /** Whether a visit's query string is added to the destination. */
  forwardQuery: boolean;
}

/** The device classes a short URL may send elsewhere. */
export const DEVICE_CLASSES = ["ios", "android", "desktop"] as const;

/** A device class of {@link DEVICE_CLASSES}. */
export type DeviceClass = typeof DEVICE_CLASSES[number];

/** A destination per device class; a class left out gets the URL's own destination. */
export type DeviceDestinations = Partial<Record<DeviceClass, string>>;

/** What a URL record stored before expiries and redirect rules lacks. */
export const URL_RULE_DEFAULTS = {
  expiresAt: null,
  deviceDestinations: null,
  forwardQuery: false,
} as const satisfies Partial<UrlRecord>;

/** The fields of a URL that an update may change (`null` clears). */
export type UrlPatch = Partial<
  Pick<
    UrlRecord,
    | "destination"
    | "vanity"
    | "maxViews"
    | "password"
    | "enabled"
    | "expiresAt"
    | "deviceDestinations"
    | "forwardQuery"
  >
>;

/** The outcome of counting a view. */
export type UrlView =
  | { counted: true; url: UrlRecord }
  /** The URL was already at its `maxViews`: nothing was counted. */
  | { counted: false; url: UrlRecord };

/** Totals over a user's URLs, for its statistics. */
export interface UrlStats {
  urls: number;
  views: number;
}

/** One page of a user's URLs and how many it owns. */
export interface UrlPage {
  urls: UrlRecord[];
  total: number;
}

/** Short URLs. */
export interface UrlStore {
  /**
   * Adds `url`, unless its owner already has `maxUrls` URLs (`null`: no
   * limit): then returns `false` and writes nothing. Throws
   * {@link UniqueError} (`code` or `vanity`) when a name is taken by any URL's
   * code or vanity. Atomic: concurrent creates never pass the limit.
   */
  create(url: UrlRecord, maxUrls: number | null): Promise<boolean>;
  /**
   * Adds URLs (imports) with no limit on their owners' counts, in a few large
   * writes. The ids must be new. Throws {@link UniqueError} (`code`) when a
   * code or vanity is taken; on Deno KV earlier writes of the call have landed
   * by then, so call it inside `Store.transaction`.
   */
  createMany(urls: UrlRecord[]): Promise<void>;
  /** Which of `names` are taken by a URL's code or vanity. */
  takenNames(names: string[]): Promise<Set<string>>;
  /** The URL with this id, or `null`. */
  get(id: string): Promise<UrlRecord | null>;
  /** The URL whose code or vanity is `name`, or `null`. */
  getByName(name: string): Promise<UrlRecord | null>;
  /** A user's URLs, oldest first. */
  listByUser(userId: string): Promise<UrlRecord[]>;
  /** `limit` of a user's URLs from `offset`, oldest first, and how many it owns. */
  pageByUser(userId: string, offset: number, limit: number): Promise<UrlPage>;
  /** How many URLs a user owns. */
  countByUser(userId: string): Promise<number>;
  /**
   * A user's URL count and their views summed (`null`: of the URLs without an
   * owner), kept by the store with each write, not counted from the URLs.
   */
  statsByUser(userId: string | null): Promise<UrlStats>;
  /**
   * Applies `patch` and sets `updatedAt`; returns the new record or `null`
   * when there is no such URL. Throws {@link UniqueError} (`vanity`) on a clash.
   */
  update(id: string, patch: UrlPatch, now: Date): Promise<UrlRecord | null>;
  /** Removes the URL; returns it, or `null`. */
  delete(id: string): Promise<UrlRecord | null>;
  /**
   * Counts one view unless `maxViews` is set and reached. Atomic: of
   * concurrent views racing for the last one, exactly one is counted.
   * `null` when there is no such URL.
   */
  view(id: string): Promise<UrlView | null>;
  /**
   * Adds `count` views to a URL without a check against its `maxViews`
   * (the batched views of `url_cache.ts`); a missing URL is no error.
   */
  addViews(id: string, count: number): Promise<void>;
  /** Removes every URL of a user; returns how many. */
  deleteByUser(userId: string): Promise<number>;
  /** Keeps a user's URLs with no owner (`userId` null); returns how many. */
  orphanByUser(userId: string): Promise<number>;
  /** Up to `limit` URLs whose `expiresAt` is at or before `at`, soonest first. */
  expiredBy(at: Date, limit: number): Promise<UrlRecord[]>;
  /**
   * Up to `limit` URLs whose views reached their `maxViews`, in id order (the
   * `maxviews` task; PostgreSQL reads them from an index of those alone).
   */
  exhausted(limit: number): Promise<UrlRecord[]>;
  /** Every URL, read a page at a time (exports). */
  iterate(): AsyncIterable<UrlRecord>;
  /**
   * Puts right what the store keeps of a user's URLs beside their records,
   * should it drift (a write by hand, a bug): on Deno KV the URL count, the
   * views total and the copies the URL list reads (`null`: the count, views
   * total and index of the URLs without an owner); PostgreSQL keeps none (it
   * aggregates). Returns how many keys it set right.
   */
  recount(userId: string | null): Promise<number>;
}

/**
 * Short URLs as the service reads them: any {@link UrlStore} behind the
 * serving store (`url_cache.ts`), which adds what the public redirect needs.
 */
export interface ServingUrlStore extends UrlStore {
  /**
   * {@link UrlStore.getByName} for public redirects: the answer may come from
   * a cache, up to a second old when another process changed the URL (its
   * views too); a write through this store is seen at once.
   */
  resolve(name: string): Promise<UrlRecord | null>;
  /**
   * {@link resolve}'s answer when the cache holds a fresh one, at once;
   * `undefined` when it would have to ask the store. A fresh answer near its
   * end is loaded again in the background, so a busy name stays cached.
   */
  resolveCached(name: string): UrlRecord | null | undefined;
  /**
   * Counts one view of a URL without `maxViews`, without a write per view:
   * views are added to the store in batches within a second (and on
   * {@link flushViews} or close); reads through this store include them at
   * once. A URL deleted meanwhile keeps no trace of them.
   */
  countView(id: string): void;
  /** Writes the views {@link countView} holds back, now. */
  flushViews(): Promise<void>;
}
