/**
 * What a short URL's own rules make of a visit: whether it has expired, and
 * where it sends this visitor (a destination per device class, the visit's
 * query string forwarded). Cheap enough for the redirect's fast path: a URL
 * with no rules costs one property read each.
 */
import type { DeviceClass, UrlRecord } from "../db/urls.ts";
import { type VisitSignals, visitSignals } from "./visits/record.ts";

/** What a redirect needs to know of the request that asks for it. */
export interface Visit {
  /** The request's `User-Agent`, read only when a rule needs it. */
  userAgent(): string | null;
  /** The request's URL as sent (its query string is forwarded when the URL says so). */
  url: string;
  /** Who visits, for the owner's visit analytics; read only when a visit is recorded. */
  signals?: () => VisitSignals;
}

/** A visit read from a Web `Request`, sent from the address `ip` gives (analytics). */
export function visitOf(request: Request, ip?: () => string): Visit {
  return {
    userAgent: () => request.headers.get("user-agent"),
    url: request.url,
    signals: ip && (() => visitSignals(request, ip)),
  };
}

const IOS = /\b(iPhone|iPad|iPod)\b/;
const ANDROID = /\bAndroid\b/;
const OTHER_MOBILE = /\b(Mobile|Mobi|Tablet|Windows Phone|KaiOS|BlackBerry)\b/;

/**
 * The device class of a user agent: `ios` (iPhone, iPad, iPod), `android`,
 * `desktop` (any other browser that says it is not a phone or tablet), or
 * `null` for other phones and an empty agent, which get the URL's destination.
 */
export function deviceClassOf(userAgent: string | null): DeviceClass | null {
  if (!userAgent) return null;
  if (IOS.test(userAgent)) return "ios";
  if (ANDROID.test(userAgent)) return "android";
  return OTHER_MOBILE.test(userAgent) ? null : "desktop";
}

/** Whether `url` has expired at `now` (milliseconds). */
export function hasExpired(url: UrlRecord, now: number): boolean {
  return url.expiresAt !== null && url.expiresAt.getTime() <= now;
}

/** Where `url` sends this `visit`: its device's destination, then the query string added. */
export function destinationFor(url: UrlRecord, visit: Visit): string {
  const byDevice = url.deviceDestinations;
  const device = byDevice ? deviceClassOf(visit.userAgent()) : null;
  const destination = (device && byDevice?.[device]) || url.destination;
  return url.forwardQuery ? withQuery(destination, visit.url) : destination;
}

/**
 * `destination` with the query string of `requestUrl` added (after its own,
 * before its fragment); unchanged when the request has none.
 */
export function withQuery(destination: string, requestUrl: string): string {
  const start = requestUrl.indexOf("?");
  if (start < 0) return destination;
  const hash = requestUrl.indexOf("#", start);
  const query = requestUrl.slice(start + 1, hash < 0 ? undefined : hash);
  if (!query) return destination;
  const fragmentAt = destination.indexOf("#");
  const base = fragmentAt < 0 ? destination : destination.slice(0, fragmentAt);
  const fragment = fragmentAt < 0 ? "" : destination.slice(fragmentAt);
  const joiner = !base.includes("?") ? "?" : base.endsWith("?") || base.endsWith("&") ? "" : "&";
  return `${base}${joiner}${query}${fragment}`;
}
