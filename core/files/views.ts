/**
 * "One view per viewer within a few seconds": a bounded map in this process
 * of who (file, IP, user agent) was last counted when. It is a courtesy that
 * keeps a browser's reloads and media re-requests from counting twice, not a
 * rule: behind several processes a viewer might be counted once per process,
 * while `maxViews` itself is enforced atomically by the store. Keeping it in
 * memory spares every served request a store write.
 */
import { perServices, type Services } from "../services.ts";

/** Entries kept at most per instance; the oldest go first. */
const MAX_ENTRIES = 50_000;
/** Bytes their keys may take at most (a user agent can be long); the oldest go first. */
const MAX_BYTES = 8 * 1024 * 1024;
/** What an entry costs beside its key: the map's slot and the time. */
const ENTRY_BYTES = 48;

/** Who was last counted when, and what the keys take. */
interface Seen {
  at: Map<string, number>;
  bytes: number;
}

const windows = perServices((_: Services): Seen => ({ at: new Map(), bytes: 0 }));

/**
 * `true` (and remembered at `now`) when `viewer` was not counted within the
 * last `windowMs`; `false` for a repeat inside the window.
 */
export function firstViewIn(s: Services, viewer: string, now: number, windowMs: number): boolean {
  const seen = windows(s);
  const last = seen.at.get(viewer);
  if (last !== undefined && now - last < windowMs) return false;
  if (last !== undefined) forget(seen, viewer);
  seen.at.set(viewer, now);
  seen.bytes += sizeOf(viewer);
  while (seen.at.size > MAX_ENTRIES || seen.bytes > MAX_BYTES) {
    forget(seen, seen.at.keys().next().value!);
  }
  return true;
}

const sizeOf = (viewer: string) => viewer.length * 2 + ENTRY_BYTES;

function forget(seen: Seen, viewer: string): void {
  seen.at.delete(viewer);
  seen.bytes -= sizeOf(viewer);
}
