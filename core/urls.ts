/**
 * Short URLs: creating them under the owner's `maxUrls` quota, managing them,
 * and resolving a public name (code or vanity) to a redirect that honours
 * `enabled`, `maxViews` and the password (its grants: `url_passwords.ts`).
 * Passwords are argon2 hashes and never leave the server; views are counted
 * by the store, atomically.
 */
import type { UserRecord } from "../db/users.ts";
import { UniqueError } from "../db/errors.ts";
import type { DeviceDestinations, UrlPatch, UrlRecord } from "../db/urls.ts";
import { newId, randomString } from "./clock.ts";
import { ApiError, badRequest, forbidden, notFound } from "./errors.ts";
import { hashPassword } from "./passwords.ts";
import { expiryTime } from "./units/duration.ts";
import type { Attempt } from "./password_attempts.ts";
import type { Services } from "./services.ts";
import { grantOpens } from "./url_passwords.ts";
import { destinationFor, hasExpired, type Visit } from "./url_rules.ts";
import { queueShorten } from "./webhooks/outbox.ts";
import { dropVisits, recordVisit } from "./visits/record.ts";

/** How many random codes to try before giving up on a crowded namespace. */
const CODE_ATTEMPTS = 10;

/** A URL as the API shows it: everything but the password hash, which is a flag. */
export function urlView(u: UrlRecord) {
  return {
    id: u.id,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
    code: u.code,
    vanity: u.vanity,
    destination: u.destination,
    views: u.views,
    maxViews: u.maxViews,
    password: u.password !== null,
    enabled: u.enabled,
    userId: u.userId,
    expiresAt: u.expiresAt?.toISOString() ?? null,
    deviceDestinations: u.deviceDestinations,
    forwardQuery: u.forwardQuery,
  };
}

/** What shortening takes (the options come from `x-service-*` headers). */
export interface NewUrl {
  destination: string;
  vanity?: string | null;
  enabled?: boolean;
  maxViews?: number | null;
  password?: string | null;
  expiresAt?: Date | null;
  /** The `deletes-at` header (`1d`, `date=…`, `never`), used when `expiresAt` is not given. */
  deletesAt?: string;
  deviceDestinations?: DeviceDestinations | null;
  forwardQuery?: boolean;
}

/** A 400 unless `at` (when given) is after `now`. */
function checkExpiry(at: Date | null | undefined, now: number): void {
  if (at && at.getTime() <= now) throw badRequest("The expiry must be in the future");
}

/** The expiry `input` asks for: its own `expiresAt`, else its `deletes-at` header's. */
function expiryOf(input: NewUrl, now: number): Date | null {
  if (input.expiresAt !== undefined || input.deletesAt === undefined) {
    checkExpiry(input.expiresAt, now);
    return input.expiresAt ?? null;
  }
  const at = expiryTime(input.deletesAt, now);
  if (at === null) return null;
  if (!Number.isFinite(at) || at <= now) {
    throw badRequest("bad options[deletes-at]: Invalid expiry date");
  }
  return new Date(at);
}

/** `d`, or `null` when it names no device (`undefined`, no change, stays). */
function someDestinations(
  d: DeviceDestinations | null | undefined,
): DeviceDestinations | null | undefined {
  if (d === undefined) return undefined;
  return d && Object.values(d).some(Boolean) ? d : null;
}

/**
 * Shortens `input.destination` for `user`: a random code of `urlsLength`,
 * the vanity when given (400 `Vanity already taken`), within the user's
 * `maxUrls` (403). `link` builds the short URL for the shorten webhook.
 */
export async function createUrl(
  s: Services,
  user: UserRecord,
  input: NewUrl,
  link: (url: UrlRecord) => string,
): Promise<UrlRecord> {
  const now = new Date(s.clock.now());
  const expiresAt = expiryOf(input, now.getTime());
  const base = {
    id: newId(s.random, now.getTime()),
    vanity: input.vanity ?? null,
    destination: input.destination,
    views: 0,
    maxViews: input.maxViews ?? null,
    password: input.password ? await hashPassword(input.password, s.random) : null,
    enabled: input.enabled ?? true,
    userId: user.id,
    createdAt: now,
    updatedAt: now,
    expiresAt,
    deviceDestinations: someDestinations(input.deviceDestinations) ?? null,
    forwardQuery: input.forwardQuery ?? false,
  };
  const maxUrls = user.quota?.maxUrls ?? null;
  for (let attempt = 1;; attempt++) {
    const url: UrlRecord = { ...base, code: randomString(s.random, s.settings.get("urlsLength")) };
    try {
      if (!(await s.store.urls.create(url, maxUrls))) {
        throw forbidden(`Shortening this URL would exceed your quota of ${maxUrls} URLs.`);
      }
    } catch (error) {
      if (!(error instanceof UniqueError)) throw error;
      if (error.field === "vanity") throw badRequest("Vanity already taken");
      if (attempt >= CODE_ATTEMPTS) throw new ApiError(503, "No free short URL code; try again");
      continue;
    }
    await queueShorten(s, {
      user: { id: user.id, username: user.username, role: user.role },
      url: { id: url.id, code: url.code, destination: url.destination, views: 0, createdAt: now },
      link: { raw: link(url) },
    });
    return url;
  }
}

/** Which field a URL search looks in. */
export type UrlSearchField = "destination" | "vanity" | "code";

/** The user's URLs, oldest first; with `query`, those whose `field` contains it (any case). */
export async function listUrls(
  s: Services,
  user: UserRecord,
  field: UrlSearchField,
  query?: string,
): Promise<UrlRecord[]> {
  const urls = await s.store.urls.listByUser(user.id);
  if (!query) return urls;
  const needle = query.toLowerCase();
  return urls.filter((u) => (u[field] ?? "").toLowerCase().includes(needle));
}

/**
 * One page (1-based) of the user's URLs, oldest first, searched as
 * {@link listUrls} does, with how many match and the number of pages. Without
 * a search the page is read alone (`UrlStore.pageByUser`); a search reads the
 * user's URLs and keeps the matches.
 */
export async function pageUrls(
  s: Services,
  user: UserRecord,
  page: number,
  perpage: number,
  field: UrlSearchField,
  query?: string,
) {
  const offset = (page - 1) * perpage;
  let urls: UrlRecord[];
  let total: number;
  if (query) {
    const all = await listUrls(s, user, field, query);
    urls = all.slice(offset, offset + perpage);
    total = all.length;
  } else {
    ({ urls, total } = await s.store.urls.pageByUser(user.id, offset, perpage));
  }
  return { urls, total, pages: Math.ceil(total / perpage) };
}

/** The user's URL with this id; 404 when it is missing or someone else's. */
export async function getOwnUrl(s: Services, user: UserRecord, id: string): Promise<UrlRecord> {
  const url = await s.store.urls.get(id);
  if (!url || url.userId !== user.id) throw notFound();
  return url;
}

/** A change to a URL; `password` `""` or `null` removes the password. */
export type UrlChange = Omit<UrlPatch, "password"> & { password?: string | null };

/** Changes the user's URL; a vanity another URL holds is 400 `Vanity already exists`. */
export async function updateUrl(
  s: Services,
  user: UserRecord,
  id: string,
  change: UrlChange,
): Promise<UrlRecord> {
  await getOwnUrl(s, user, id);
  checkExpiry(change.expiresAt, s.clock.now());
  const patch: UrlPatch = {
    ...change,
    deviceDestinations: someDestinations(change.deviceDestinations),
    password: change.password === undefined
      ? undefined
      : change.password
      ? await hashPassword(change.password, s.random)
      : null,
  };
  try {
    const updated = await s.store.urls.update(id, patch, new Date(s.clock.now()));
    if (!updated) throw notFound();
    return updated;
  } catch (error) {
    if (error instanceof UniqueError) throw badRequest("Vanity already exists");
    throw error;
  }
}

/** Deletes the user's URL; returns it. */
export async function deleteUrl(s: Services, user: UserRecord, id: string): Promise<UrlRecord> {
  await getOwnUrl(s, user, id);
  const removed = await removeUrl(s, id);
  if (!removed) throw notFound();
  return removed;
}

/** Deletes the URL `id` and its visits; the URL deleted, `null` when there was none. */
export async function removeUrl(s: Services, id: string): Promise<UrlRecord | null> {
  const removed = await s.store.urls.delete(id);
  if (removed) await dropVisits(s, { kind: "url", id: removed.id, ownerId: removed.userId });
  return removed;
}

/** Deletes every URL of `userId` with their visits; returns how many. */
export async function removeUserUrls(s: Services, userId: string): Promise<number> {
  const urls = await s.store.urls.listByUser(userId);
  const removed = await s.store.urls.deleteByUser(userId);
  for (const url of urls) await dropVisits(s, { kind: "url", id: url.id, ownerId: userId });
  return removed;
}

/** What a public request for a short URL name leads to. */
export type UrlResolution =
  | { kind: "redirect"; destination: string }
  /** Password-protected and no valid access cookie: ask for the password. */
  | { kind: "password"; urlId: string }
  /** Disabled, or past its max views: 404. */
  | { kind: "gone" }
  /** Past its `expiresAt`: 410, with a page that says so. */
  | { kind: "expired" };

/** How a request proves a URL's password was given, and who sends it. */
export interface UrlAccessProof extends Attempt {
  /** The access cookie `url_pw_<urlId>` of a URL, read once the URL is known. */
  cookie: (urlId: string) => string | undefined;
}

/**
 * Resolves `name` (a code or a vanity) for `visit`; `null` when no URL has
 * it. A counted view is a redirect (to the destination the URL's rules pick
 * for the visit); at its max views the URL is deleted when
 * `featuresDeleteOnMaxViews` is on; after its expiry it is `expired`. An
 * access cookie holding no live grant is a failed password attempt: logged,
 * and the 429 past the attempts' limit.
 */
export async function resolveUrl(
  s: Services,
  name: string,
  proof: UrlAccessProof,
  visit: Visit,
): Promise<UrlResolution | null> {
  const url = await s.store.urls.resolve(name);
  return url && await openUrl(s, url, proof, visit);
}

/**
 * The password page `/view/url/<id>` (reference §6.5) for the URL with this
 * id (or code, or vanity); `null` when there is none. Like {@link resolveUrl}:
 * `password` until the access cookie holds a live grant, then one
 * counted view and the destination. A URL without a password redirects too.
 */
export async function resolveUrlPage(
  s: Services,
  idOrName: string,
  proof: UrlAccessProof,
  visit: Visit,
): Promise<UrlResolution | null> {
  const url = await s.store.urls.get(idOrName) ?? await s.store.urls.getByName(idOrName);
  return url && await openUrl(s, url, proof, visit);
}

/**
 * The destination for `visit` of an enabled, unexpired URL with neither a
 * password nor `maxViews`, its view counted (in the store's batch, no write
 * now); `null` for any other URL, which {@link resolveUrl} has more to check
 * for.
 */
export function freeRedirect(s: Services, url: UrlRecord, visit: Visit): string | null {
  if (!url.enabled || url.password || url.maxViews !== null) return null;
  if (url.expiresAt !== null && hasExpired(url, s.clock.now())) return null;
  s.store.urls.countView(url.id);
  recordVisit(s, { kind: "url", id: url.id, ownerId: url.userId }, visit.signals);
  return destinationFor(url, visit);
}

/** Where a request for `url` leads: the password, a counted redirect, gone or expired. */
async function openUrl(
  s: Services,
  url: UrlRecord,
  proof: UrlAccessProof,
  visit: Visit,
): Promise<UrlResolution> {
  const free = freeRedirect(s, url, visit);
  if (free !== null) return { kind: "redirect", destination: free };
  if (!url.enabled) return { kind: "gone" };
  if (hasExpired(url, s.clock.now())) return { kind: "expired" };
  // A URL with no redirect left is gone (below) without asking for its password.
  const usedUp = url.maxViews !== null && url.views >= url.maxViews;
  if (url.password && !usedUp) {
    const grant = proof.cookie(url.id);
    if (grant === undefined || !(await grantOpens(s, url, grant, proof))) {
      return { kind: "password", urlId: url.id };
    }
  }
  if (url.maxViews === null) {
    // A password checked above, nothing to enforce: counted in the store's batch.
    s.store.urls.countView(url.id);
    recordVisit(s, { kind: "url", id: url.id, ownerId: url.userId }, visit.signals);
    return { kind: "redirect", destination: destinationFor(url, visit) };
  }
  const view = await s.store.urls.view(url.id);
  if (view?.counted) {
    recordVisit(s, { kind: "url", id: url.id, ownerId: url.userId }, visit.signals);
    return { kind: "redirect", destination: destinationFor(view.url, visit) };
  }
  if (view && s.settings.get("featuresDeleteOnMaxViews")) await removeUrl(s, url.id);
  return { kind: "gone" };
}
