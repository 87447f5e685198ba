/**
 * Visits as the request path leaves them: a few raw facts a visit in
 * preallocated columns (its time in a `Float64Array`, its target, user agent
 * and `Referer` as indexes into small tables of the batch's distinct ones,
 * its address as a number: an IPv4 address in its usual form as its 32 bits,
 * any other as an index into the strings table), no object a visit and no
 * string kept a new visitor. A batch
 * is taken as {@link RawVisits}, plain data a worker's message carries; the
 * grouping, the user agents' parsing, the bot check, the country, the
 * visitor hash, the roll-up and the packs are all the batch's work
 * (`batch.ts`, on the visits worker), none the request's.
 */
import type { VisitTargetKind } from "../../db/visits.ts";

/** What was visited. */
export interface VisitTarget {
  kind: VisitTargetKind;
  id: string;
  ownerId: string | null;
}

/** A batch of visits as requests left them (oldest first). */
export interface RawVisits {
  /** How many visits (rows) the columns hold. */
  count: number;
  /** Each visit's time (ms). */
  times: Float64Array;
  /** Each visit's index in {@link targets}. */
  target: Int32Array;
  /**
   * Each visit's client address: an IPv4 address (written as `ipv4Text`
   * writes it) as its 32-bit value, any other `-(1 + i)` for the i-th of
   * {@link strings} ({@link addressOf}).
   */
  address: Float64Array;
  /** Each visit's user agent, an index in {@link strings}. */
  agent: Int32Array;
  /** Each visit's `Referer` as sent, an index in {@link strings}; `-1` without one. */
  referer: Int32Array;
  /** The batch's distinct user agents, `Referer`s and addresses other than IPv4. */
  strings: string[];
  /** The batch's distinct targets; `null` for one forgotten since (its link or file was deleted). */
  targets: (VisitTarget | null)[];
}

/** Agents compared before the map is asked. */
const RECENT_AGENTS = 8;

/** Rows the columns hold before they first grow. */
const INITIAL_ROWS = 1024;

/** The columns one recorder fills; {@link take} hands them over as a batch and starts anew. */
export class VisitColumns {
  #times = new Float64Array(INITIAL_ROWS);
  #target = new Int32Array(INITIAL_ROWS);
  #agent = new Int32Array(INITIAL_ROWS);
  #referer = new Int32Array(INITIAL_ROWS);
  #address = new Float64Array(INITIAL_ROWS);
  #strings: string[] = [];
  #stringIndex = new Map<string, number>();
  #targets: (VisitTarget | null)[] = [];
  #targetIndex = new Map<string, number>();
  /**
   * The agents seen last and their indexes: a batch's visitors share a few
   * agents, and comparing a fresh header string with a few kept ones costs
   * less than hashing it for the map.
   */
  #recentAgents: string[] = [];
  #recentIndexes: number[] = [];
  /** The last visit's target (a busy visitor's next visit shares it). */
  #lastTarget: VisitTarget | null = null;
  #lastTargetIndex = -1;
  /** Rows filled. */
  length = 0;

  /** Adds one visit of `target` at `at` (ms) by `ip` with `ua` and `referer`. */
  add(at: number, target: VisitTarget, ip: string, ua: string, referer: string | null): void {
    const row = this.length;
    if (row === this.#times.length) this.#grow();
    this.#times[row] = at;
    this.#target[row] = this.#targetOf(target);
    const v4 = ipv4Of(ip);
    this.#address[row] = v4 >= 0 ? v4 : -1 - this.#stringOf(ip);
    this.#agent[row] = this.#agentOf(ua);
    this.#referer[row] = referer === null ? -1 : this.#stringOf(referer);
    this.length = row + 1;
  }

  /** The oldest visit's time, `undefined` when empty. */
  oldest(): number | undefined {
    return this.length === 0 ? undefined : this.#times[0];
  }

  /** The visits held, handed over (copied out of the columns, which start empty again). */
  take(): RawVisits {
    const n = this.length;
    const raw: RawVisits = {
      count: n,
      times: this.#times.slice(0, n),
      target: this.#target.slice(0, n),
      address: this.#address.slice(0, n),
      agent: this.#agent.slice(0, n),
      referer: this.#referer.slice(0, n),
      strings: this.#strings,
      targets: this.#targets,
    };
    this.length = 0;
    this.#strings = [];
    this.#stringIndex = new Map();
    this.#targets = [];
    this.#targetIndex = new Map();
    this.#recentAgents = [];
    this.#recentIndexes = [];
    this.#lastTarget = null;
    this.#lastTargetIndex = -1;
    return raw;
  }

  /** Forgets the visits of one target; returns how many went. */
  forget(kind: VisitTargetKind, id: string): number {
    const gone = forgetIn(this.#view(), kind, id);
    if (gone > 0) this.#lastTarget = null;
    return gone;
  }

  /** The columns as they stand (not copied), for {@link forgetIn}. */
  #view(): RawVisits {
    return {
      count: this.length,
      times: this.#times,
      target: this.#target,
      address: this.#address,
      agent: this.#agent,
      referer: this.#referer,
      strings: this.#strings,
      targets: this.#targets,
    };
  }

  #targetOf(target: VisitTarget): number {
    const last = this.#lastTarget;
    if (
      last !== null && last.id === target.id && last.kind === target.kind &&
      last.ownerId === target.ownerId
    ) return this.#lastTargetIndex;
    const key = target.kind === "url" ? `u${target.id}` : `f${target.id}`;
    let index = this.#targetIndex.get(key);
    const known = index === undefined ? null : this.#targets[index];
    if (index === undefined || known === null || known.ownerId !== target.ownerId) {
      index = this.#targets.length;
      this.#targets.push({ kind: target.kind, id: target.id, ownerId: target.ownerId });
      this.#targetIndex.set(key, index);
    }
    this.#lastTarget = this.#targets[index];
    this.#lastTargetIndex = index;
    return index;
  }

  #agentOf(ua: string): number {
    const recent = this.#recentAgents;
    for (let i = 0; i < recent.length; i++) if (recent[i] === ua) return this.#recentIndexes[i];
    const index = this.#stringOf(ua);
    if (recent.length === RECENT_AGENTS) {
      recent.pop();
      this.#recentIndexes.pop();
    }
    recent.unshift(ua);
    this.#recentIndexes.unshift(index);
    return index;
  }

  #stringOf(value: string): number {
    let index = this.#stringIndex.get(value);
    if (index === undefined) {
      index = this.#strings.length;
      this.#strings.push(value);
      this.#stringIndex.set(value, index);
    }
    return index;
  }

  #grow(): void {
    const size = 2 * this.#times.length;
    this.#times = grown(this.#times, new Float64Array(size));
    this.#target = grown(this.#target, new Int32Array(size));
    this.#agent = grown(this.#agent, new Int32Array(size));
    this.#referer = grown(this.#referer, new Int32Array(size));
    this.#address = grown(this.#address, new Float64Array(size));
  }
}

/** `to` with `from` copied into its start. */
function grown<T extends Float64Array | Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** Forgets the visits of one target in `raw` (its table entry emptied); returns how many went. */
export function forgetIn(raw: RawVisits, kind: VisitTargetKind, id: string): number {
  let gone = 0;
  for (const [index, target] of raw.targets.entries()) {
    if (target === null || target.kind !== kind || target.id !== id) continue;
    raw.targets[index] = null;
    for (let row = 0; row < raw.count; row++) if (raw.target[row] === index) gone++;
  }
  return gone;
}

/** How many visits of `raw` still count (those of forgotten targets left out). */
export function visitsIn(raw: RawVisits): number {
  let n = 0;
  for (let row = 0; row < raw.count; row++) if (raw.targets[raw.target[row]] !== null) n++;
  return n;
}

/** The newest `keep` rows of `raw` (its tables shared). */
export function newestOf(raw: RawVisits, keep: number): RawVisits {
  const from = Math.max(0, raw.count - keep);
  return {
    ...raw,
    count: raw.count - from,
    times: raw.times.slice(from),
    target: raw.target.slice(from),
    address: raw.address.slice(from),
    agent: raw.agent.slice(from),
    referer: raw.referer.slice(from),
  };
}

/**
 * The 32-bit value of an IPv4 address in its usual form (four decimal
 * numbers up to 255, no leading zeros, three dots: {@link ipv4Text} gives
 * the same string back); `-1` for anything else.
 */
export function ipv4Of(ip: string): number {
  const n = ip.length;
  if (n < 7 || n > 15) return -1;
  let value = 0, part = 0, digits = 0, dots = 0;
  for (let i = 0; i < n; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      // A leading zero ("01") is not the usual form.
      if (digits > 0 && part === 0) return -1;
      part = part * 10 + c - 48;
      if (++digits > 3 || part > 255) return -1;
    } else return -1;
  }
  return dots === 3 && digits > 0 ? value * 256 + part : -1;
}

/** The usual form of the IPv4 address whose 32-bit value is `value`. */
export function ipv4Text(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** The address (as the request gave it) of an {@link RawVisits.address} entry of `raw`. */
export function addressOf(raw: RawVisits, address: number): string {
  return address >= 0 ? ipv4Text(address) : raw.strings[-1 - address];
}
