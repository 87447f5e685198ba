/**
 * What a visit's user agent says: its browser, OS and device class (parsed
 * with ua-parser-js 1.x, which is MIT-licensed where 2.x is AGPL-3.0) and
 * whether it is a bot (isbot's list). Parsing costs tens of microseconds, so
 * the answers of the most recent agents are kept (a bounded map, no expiry:
 * an agent string always parses the same).
 */
import { isbot } from "isbot";
import { UAParser } from "ua-parser-js";

/** The device classes a visit is counted under. */
export const DEVICE_CLASSES = [
  "desktop",
  "mobile",
  "tablet",
  "console",
  "tv",
  "wearable",
  "embedded",
  "xr",
  "bot",
] as const;
/** One device class. */
export type VisitDevice = typeof DEVICE_CLASSES[number];

/** What one user agent is. */
export interface AgentFacts {
  browser: string | null;
  os: string | null;
  device: VisitDevice;
  bot: boolean;
}

/** Agents whose facts are kept. */
const KEPT = 2000;
const known = new Map<string, AgentFacts>();

/** The browser, OS, device class and bot flag of `userAgent` (empty: an unknown desktop). */
export function agentFacts(userAgent: string): AgentFacts {
  const ua = userAgent.slice(0, 1000);
  let facts = known.get(ua);
  if (facts === undefined) {
    if (known.size >= KEPT) known.clear();
    known.set(ua, facts = parse(ua));
  }
  return facts;
}

function parse(ua: string): AgentFacts {
  const bot = ua !== "" && isbot(ua);
  const result = UAParser(ua);
  const type = result.device.type;
  const device: VisitDevice = bot
    ? "bot"
    : type === "smarttv"
    ? "tv"
    : type !== undefined && (DEVICE_CLASSES as readonly string[]).includes(type)
    ? type as VisitDevice
    : "desktop";
  return { browser: result.browser.name ?? null, os: result.os.name ?? null, device, bot };
}

/** The host of a `Referer` header (lower case, no port), `null` when absent or not an http(s) URL. */
export function referrerHost(referer: string | null | undefined): string | null {
  if (!referer) return null;
  try {
    const url = new URL(referer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return url.hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}
