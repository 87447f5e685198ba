/**
 * "One view per viewer within a few seconds": a bounded map in this process
 * of who (file, IP, user agent) was last counted when. It is a courtesy that
 * keeps a browser's reloads and media re-requests from counting twice, not a
 * rule: behind several processes a viewer might be counted once per process,
 * while `maxViews` itself is enforced atomically by the store. Keeping it in
 * memory spares every served request a store write.
 */
import type { Services } from "../services.ts";

/** Entries kept at most per process; the oldest go first. */
const MAX_ENTRIES = 50_000;

const windows = new WeakMap<Services, Map<string, number>>();

/**
 * `true` (and remembered at `now`) when `viewer` was not counted within the
 * last `windowMs`; `false` for a repeat inside the window.
 */
export function firstViewIn(s: Services, viewer: string, now: number, windowMs: number): boolean {
  let seen = windows.get(s);
  if (!seen) windows.set(s, seen = new Map());
  const last = seen.get(viewer);
  if (last !== undefined && now - last < windowMs) return false;
  seen.delete(viewer);
  seen.set(viewer, now);
  if (seen.size > MAX_ENTRIES) seen.delete(seen.keys().next().value!);
  return true;
}
