/**
 * Visits recorded off the request path: a request only adds what it saw (the
 * target, the address, the user agent, the `Referer`, the time) to this
 * instance's buffer (a visit alike the one before it, as a busy visitor's are,
 * only adds its time); the buffer is written in one batch
 * ({@link VisitStore.add}) when it holds {@link FLUSH_SIZE} visits, or once
 * its oldest visit waited {@link FLUSH_DELAY_MS} on the services' clock
 * (looked at every second, and before a read of visits, so that a test moves
 * its manual clock instead of waiting). A batch is grouped first: visits of
 * one target by one address and agent with one `Referer` on one day make one
 * group, whose facts are worked out once (user agent parsed, bot flag,
 * country, visitor hash under the day's salt) and which the store writes as
 * one entry with each visit's time (`VisitGroup`), so a batch's work and
 * writes grow with its visitors, not its visits. The client's address is
 * held in memory until then only and never written. Closing (the server's
 * shutdown) writes what waits. The buffer holds at most {@link MAX_PENDING}
 * visits and a batch the store refused waits for the next up to
 * {@link MAX_WAITING} visits; visits past either are dropped, counted and
 * logged.
 *
 * The shape of `db/view_batch.ts`, one level up: enriching a visit needs the
 * settings and the salt, which are the core's.
 */
import { dayOf } from "../../db/visit_rollup.ts";
import type { VisitGroup, VisitTargetKind } from "../../db/visits.ts";
import { systemTimer, type Timer } from "../clock.ts";
import { perServices, type Services } from "../services.ts";
import { dayHasher, type VisitorHasher } from "./salt.ts";

/**
 * The user-agent parser and bot list (ua-parser-js, isbot) and the GeoLite2
 * reader, loaded by the first batch: a server whose links are not visited
 * with analytics on never holds them (bench/results/memory.md).
 */
const enrichment = () => Promise.all([import("./agent.ts"), import("./geo.ts")]);

/** How long a visit may wait before it is written. */
export const FLUSH_DELAY_MS = 1000;
/** A buffer this full is written at once. */
export const FLUSH_SIZE = 10_000;
/** Visits the buffer holds at most; later ones are dropped (and counted) until it is written. */
export const MAX_PENDING = 200_000;
/** Visits kept for a retry after the store refused them; older ones are dropped. */
export const MAX_WAITING = 50_000;

/** What a request tells of its visitor. */
export interface VisitSource {
  ip: string;
  ua: string;
  /** The `Referer` header, as sent. */
  referer: string | null;
}

/** What was visited. */
export interface VisitTarget {
  kind: VisitTargetKind;
  id: string;
  ownerId: string | null;
}

/**
 * Visits as requests left them, no more than they saw: one visit, or several
 * in a row alike (same target, address, agent and `Referer`, on one day),
 * which then cost the buffer a time each.
 */
interface Pending {
  target: VisitTarget;
  ip: string;
  ua: string;
  referer: string | null;
  /** The start of the visits' UTC day (ms). */
  day: number;
  /** Each visit's time (ms), oldest first. */
  times: number[];
}

/** Groups a batch compares a visit with, of one address and target. */
const ALIKE_CANDIDATES = 8;

/** Whether `a` and `b` are alike visits: one target, address, agent, `Referer` and day. */
function sameVisitor(a: Omit<Pending, "times">, b: Omit<Pending, "times">): boolean {
  return a.day === b.day && a.ip === b.ip && a.target.id === b.target.id &&
    a.referer === b.referer && a.target.kind === b.target.kind &&
    a.target.ownerId === b.target.ownerId && a.ua === b.ua;
}

/** One instance's buffer of visits. */
export class VisitRecorder {
  #pending: Pending[] = [];
  /** The visits {@link #pending} holds. */
  #visits = 0;
  /** Groups the store refused, written with the next batch. */
  #ready: VisitGroup[] = [];
  /** Visits dropped since the last batch: the buffer was full. */
  #dropped = 0;
  /** The last write asked for (each waits for the one before). */
  #tail: Promise<void> = Promise.resolve();
  /** Writes asked for and not finished. */
  #writes = 0;
  #stopTicking: (() => void) | undefined;

  /**
   * @param timer looks at the buffer every {@link FLUSH_DELAY_MS}
   * @param maxPending the most visits the buffer holds ({@link MAX_PENDING})
   */
  constructor(
    private readonly s: Services,
    private readonly timer: Timer = systemTimer,
    private readonly maxPending = MAX_PENDING,
  ) {}

  /** Adds one visit, written within {@link FLUSH_DELAY_MS} (at once when the buffer is full). */
  record(target: VisitTarget, ip: string, ua: string, referer: string | null): void {
    if (this.#visits >= this.maxPending) {
      this.#dropped++;
      return;
    }
    const at = this.s.clock.now();
    const day = dayOf(at);
    const last = this.#pending[this.#pending.length - 1];
    if (
      // The short address first: the long agent is compared only when the rest is alike.
      last !== undefined && last.day === day && last.ip === ip && last.target.id === target.id &&
      last.referer === referer && last.target.kind === target.kind &&
      last.target.ownerId === target.ownerId && last.ua === ua
    ) {
      last.times.push(at);
    } else this.#pending.push({ target, ip, ua, referer, day, times: [at] });
    this.#visits++;
    this.#stopTicking ??= this.timer.every(FLUSH_DELAY_MS, () => this.flushDue());
    if (this.#visits >= FLUSH_SIZE && this.#writes === 0) this.#flushLogged();
  }

  /** Writes the buffer when its oldest visit has waited long enough; waits for a write under way. */
  async flushDue(): Promise<void> {
    await this.#tail;
    const oldest = this.#pending[0] ?? null;
    const waited = oldest !== null && this.s.clock.now() - oldest.times[0] >= FLUSH_DELAY_MS;
    if (waited || this.#ready.length > 0) await this.#flushLogged();
  }

  /** Writes every waiting visit now; throws when the store refused them (they wait for the next). */
  flush(): Promise<void> {
    this.#writes++;
    const run = this.#tail.then(() => this.#write()).finally(() => {
      if (--this.#writes === 0 && this.#pending.length === 0 && this.#ready.length === 0) {
        this.#stop();
      }
    });
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Forgets the waiting visits of a target that is gone. */
  forget(kind: VisitTargetKind, id: string): void {
    this.#pending = this.#pending.filter((v) => v.target.kind !== kind || v.target.id !== id);
    this.#visits = this.#pending.reduce((n, v) => n + v.times.length, 0);
    this.#ready = this.#ready.filter((v) => v.targetKind !== kind || v.targetId !== id);
  }

  /** Writes what waits and stops looking: call before closing the store. */
  async close(): Promise<void> {
    this.#stop();
    await this.flush();
  }

  async #write(): Promise<void> {
    if (this.#dropped > 0) {
      this.s.logger.warn("visits dropped: the buffer was full", { visits: this.#dropped });
      this.#dropped = 0;
    }
    if (this.#pending.length === 0 && this.#ready.length === 0) return;
    const taken = this.#pending;
    this.#pending = [];
    this.#visits = 0;
    const groups = [...this.#ready, ...await this.#groups(taken)];
    this.#ready = [];
    try {
      await this.s.store.visits.add(groups);
    } catch (error) {
      this.#ready = this.#kept(groups);
      throw error;
    }
  }

  /** The newest of `groups` holding at most {@link MAX_WAITING} visits; the rest dropped, logged. */
  #kept(groups: VisitGroup[]): VisitGroup[] {
    let room = MAX_WAITING;
    let dropped = 0;
    const kept: VisitGroup[] = [];
    for (let i = groups.length - 1; i >= 0; i--) {
      const group = groups[i];
      const count = group.times.length;
      if (room <= 0) dropped += count;
      else if (count <= room) kept.push(group);
      else {
        kept.push({ ...group, times: group.times.slice(count - room) });
        dropped += count - room;
      }
      room -= count;
    }
    if (dropped > 0) {
      this.s.logger.warn("visits dropped: the store refused them too long", { visits: dropped });
    }
    return kept.reverse();
  }

  #stop(): void {
    this.#stopTicking?.();
    this.#stopTicking = undefined;
  }

  #flushLogged(): Promise<void> {
    return this.flush().catch((error) =>
      this.s.logger.error("could not record visits", { error: String(error) })
    );
  }

  /** The groups of `visits`: bots left out unless counted, each visitor hashed once. */
  async #groups(visits: Pending[]): Promise<VisitGroup[]> {
    // By target and address first (maps of maps: no key string built per visit), then the
    // rest compared. At most ALIKE_CANDIDATES groups are compared a key (an address sending
    // many agents to one link makes more groups, never a quadratic batch).
    const byTarget = new Map<string, Map<string, Pending | Pending[]>>();
    const alike: Pending[] = [];
    for (const visit of visits) {
      let byIp = byTarget.get(visit.target.id);
      if (byIp === undefined) byTarget.set(visit.target.id, byIp = new Map());
      const seen = byIp.get(visit.ip);
      const group = seen === undefined
        ? undefined
        : Array.isArray(seen)
        ? seen.find((other) => sameVisitor(other, visit))
        : sameVisitor(seen, visit)
        ? seen
        : undefined;
      if (group !== undefined) { for (const time of visit.times) group.times.push(time); }
      else {
        alike.push(visit);
        if (seen === undefined) byIp.set(visit.ip, visit);
        else if (!Array.isArray(seen)) byIp.set(visit.ip, [seen, visit]);
        else if (seen.length < ALIKE_CANDIDATES) seen.push(visit);
      }
    }
    const countBots = this.s.settings.get("analyticsCountBots");
    const [{ agentFacts, referrerHost }, { countryLookup }] = await enrichment();
    const countryOf = await countryLookup(this.s);
    const hashers = new Map<number, VisitorHasher>();
    const groups: VisitGroup[] = [];
    for (const first of alike) {
      const facts = agentFacts(first.ua);
      if (facts.bot && !countBots) continue;
      let hash = hashers.get(first.day);
      if (hash === undefined) hashers.set(first.day, hash = await dayHasher(this.s, first.day));
      groups.push({
        targetKind: first.target.kind,
        targetId: first.target.id,
        ownerId: first.target.ownerId,
        referrer: referrerHost(first.referer),
        country: countryOf(first.ip),
        browser: facts.browser,
        os: facts.os,
        device: facts.device,
        bot: facts.bot,
        visitor: hash(first.ip, first.ua),
        times: first.times,
      });
    }
    return groups;
  }
}

/** This services object's buffer. */
export const visitRecorder = perServices((s: Services) => new VisitRecorder(s));
