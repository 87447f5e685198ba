/**
 * Visits recorded off the request path: a request only adds what it saw to
 * this instance's buffer; the buffer is written in one batch
 * ({@link VisitStore.add}) when it holds {@link FLUSH_SIZE} visits, or once
 * its oldest visit waited {@link FLUSH_DELAY_MS} on the services' clock
 * (looked at every second, and before a read of visits, so that a test moves
 * its manual clock instead of waiting). A batch is made into records first
 * (user agent parsed, bot flag, country, visitor hash under the day's salt),
 * so the client's address is held in memory until then only and never
 * written. Closing (the server's shutdown) writes what waits. A batch the
 * store refused waits for the next, up to {@link MAX_WAITING} records.
 *
 * The shape of `db/view_batch.ts`, one level up: enriching a visit needs the
 * settings and the salt, which are the core's.
 */
import { dayName } from "../../db/visit_rollup.ts";
import type { VisitRecord, VisitTargetKind } from "../../db/visits.ts";
import { systemTimer, type Timer } from "../clock.ts";
import { perServices, type Services } from "../services.ts";
import { agentFacts, referrerHost } from "./agent.ts";
import { countryOf } from "./geo.ts";
import { dayHasher } from "./salt.ts";

/** How long a visit may wait before it is written. */
export const FLUSH_DELAY_MS = 1000;
/** A buffer this full is written at once. */
export const FLUSH_SIZE = 500;
/** Records kept for a retry after the store refused them; older ones are dropped. */
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

interface Pending extends VisitTarget, VisitSource {
  at: number;
}

/** One instance's buffer of visits. */
export class VisitRecorder {
  #pending: Pending[] = [];
  /** Records the store refused, written with the next batch. */
  #ready: VisitRecord[] = [];
  #flushing: Promise<void> | undefined;
  #stopTicking: (() => void) | undefined;

  constructor(private readonly s: Services, private readonly timer: Timer = systemTimer) {}

  /** Adds one visit, written within {@link FLUSH_DELAY_MS} (at once when the buffer is full). */
  record(target: VisitTarget, source: VisitSource): void {
    this.#pending.push({ ...target, ...source, at: this.s.clock.now() });
    this.#stopTicking ??= this.timer.every(FLUSH_DELAY_MS, () => this.flushDue());
    if (this.#pending.length >= FLUSH_SIZE && this.#flushing === undefined) this.#flushLogged();
  }

  /** Writes the buffer when its oldest visit has waited long enough; waits for a write under way. */
  async flushDue(): Promise<void> {
    await this.#settled();
    const oldest = this.#pending[0] ?? null;
    const waited = oldest !== null && this.s.clock.now() - oldest.at >= FLUSH_DELAY_MS;
    if (waited || this.#ready.length > 0) await this.#flushLogged();
  }

  /** Writes every waiting visit now; throws when the store refused them (they wait for the next). */
  async flush(): Promise<void> {
    await this.#settled();
    if (this.#pending.length === 0 && this.#ready.length === 0) return;
    const taken = this.#pending;
    this.#pending = [];
    this.#flushing = (async () => {
      const records = [...this.#ready, ...await this.#records(taken)];
      this.#ready = [];
      try {
        await this.s.store.visits.add(records);
      } catch (error) {
        this.#ready = records.slice(-MAX_WAITING);
        throw error;
      }
    })();
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
      if (this.#pending.length === 0 && this.#ready.length === 0) this.#stop();
    }
  }

  /** Forgets the waiting visits of a target that is gone. */
  forget(kind: VisitTargetKind, id: string): void {
    this.#pending = this.#pending.filter((v) => v.kind !== kind || v.id !== id);
    this.#ready = this.#ready.filter((v) => v.targetKind !== kind || v.targetId !== id);
  }

  /** Writes what waits and stops looking: call before closing the store. */
  async close(): Promise<void> {
    this.#stop();
    await this.flush();
  }

  #stop(): void {
    this.#stopTicking?.();
    this.#stopTicking = undefined;
  }

  async #settled(): Promise<void> {
    if (this.#flushing) await this.#flushing.catch(() => {});
  }

  #flushLogged(): Promise<void> {
    return this.flush().catch((error) =>
      this.s.logger.error("could not record visits", { error: String(error) })
    );
  }

  /** The records of `visits`: bots left out unless counted, each visitor hashed. */
  async #records(visits: Pending[]): Promise<VisitRecord[]> {
    const countBots = this.s.settings.get("analyticsCountBots");
    const records: VisitRecord[] = [];
    // A visitor's hash is made once per batch and day (the batch holds its address anyway).
    const hashed = new Map<string, string>();
    for (const visit of visits) {
      const facts = agentFacts(visit.ua);
      if (facts.bot && !countBots) continue;
      const hash = await dayHasher(this.s, visit.at);
      const key = `${dayName(visit.at)}\0${visit.ip}\0${visit.ua}`;
      let visitor = hashed.get(key);
      if (visitor === undefined) hashed.set(key, visitor = hash(visit.ip, visit.ua));
      records.push({
        targetKind: visit.kind,
        targetId: visit.id,
        ownerId: visit.ownerId,
        at: new Date(visit.at),
        referrer: referrerHost(visit.referer),
        country: await countryOf(this.s, visit.ip),
        browser: facts.browser,
        os: facts.os,
        device: facts.device,
        bot: facts.bot,
        visitor,
      });
    }
    return records;
  }
}

/** This services object's buffer. */
export const visitRecorder = perServices((s: Services) => new VisitRecorder(s));
