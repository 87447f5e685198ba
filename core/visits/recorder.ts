/**
 * Visits recorded off the request path: a request only adds what it saw (the
 * time, the target, the address, the user agent, the `Referer`) to this
 * instance's columns (`columns.ts`: a few numbers and strings a visit, no
 * object); the columns are taken as one batch when they hold
 * {@link FLUSH_SIZE} visits, or once the oldest visit waited
 * {@link FLUSH_DELAY_MS} on the services' clock (looked at every second, and
 * before a read of visits, so that a test moves its manual clock instead of
 * waiting). A batch goes to the visits worker (`visit_worker.ts`, one
 * thread, started by the first batch and ended when the recorder closes)
 * with each of its days' salt and the settings it needs; the worker groups
 * it (visits of one target by one address and agent with one `Referer` on
 * one day make one group, whose facts are worked out once: user agent
 * parsed, bot flag, country, visitor hash under the day's salt), packs and
 * rolls it up (`db/visit_batch.ts`), and writes it through a writer of its
 * own on the store (`VisitBatchWriter.address`), so the server's thread only
 * hands rows over; a store no other thread reaches (Deno KV in memory)
 * writes what the worker answers (`VisitStore.write`) here.
 * The client's address is held in memory until then only and never written.
 * A target deleted while a batch holding its visits is being written waits
 * for that write ({@link VisitRecorder.forget}), so that its visits are
 * deleted after it rather than written back. Closing (the server's shutdown)
 * writes what waits, closes the worker's writer and ends the worker. The
 * columns hold at most {@link MAX_PENDING} visits and a batch the worker or
 * the store refused waits for the next up to {@link MAX_WAITING} visits;
 * visits past either are dropped, counted and logged.
 *
 * The shape of `db/view_batch.ts`, one level up: enriching a visit needs the
 * settings and the salt, which are the core's.
 */
import { dayOf } from "../../db/visit_rollup.ts";
import type { VisitTargetKind } from "../../db/visits.ts";
import { systemTimer, type Timer } from "../clock.ts";
import { perServices, type Services } from "../services.ts";
import { type PoolStats, workerModule, WorkerPool } from "../worker_pool.ts";
import {
  forgetIn,
  newestOf,
  type RawVisits,
  VisitColumns,
  visitsIn,
  type VisitTarget,
} from "./columns.ts";
import { daySalt } from "./salt.ts";
import { CLOSE_WRITER, VISIT_WORKER, type VisitJob, type VisitJobAnswer } from "./visit_worker.ts";

export type { VisitTarget } from "./columns.ts";

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

/**
 * The visits worker of each services object (one thread; its pool ends it
 * after a minute without a batch, and {@link VisitRecorder.close} at once).
 */
const workers = perServices((_: Services) =>
  new WorkerPool({
    url: workerModule(import.meta.url, "/core/visits/recorder.ts", "./visit_worker.ts"),
    name: VISIT_WORKER,
    size: 1,
    maxQueue: 64,
    timeoutMs: 60_000,
    recycleWeight: Number.POSITIVE_INFINITY,
    idleMs: 60_000,
  })
);

/** The GeoLite2 file whose failure to open was logged last, per services object. */
const geoWarned = perServices((_: Services) => ({ path: null as string | null }));

/** One instance's buffer of visits. */
export class VisitRecorder {
  #columns = new VisitColumns();
  /** Batches the worker or the store refused, written with the next batch. */
  #waiting: RawVisits[] = [];
  /** The batch being written (kept here for {@link forget} and for a retry). */
  #writing: RawVisits[] = [];
  /** The worker was given a batch to write since its writer was last closed. */
  #workerWrites = false;
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
    const columns = this.#columns;
    if (columns.length >= this.maxPending) {
      this.#dropped++;
      return;
    }
    columns.add(this.s.clock.now(), target, ip, ua, referer);
    this.#stopTicking ??= this.timer.every(FLUSH_DELAY_MS, () => this.flushDue());
    if (columns.length >= FLUSH_SIZE && this.#writes === 0) this.#flushLogged();
  }

  /** Writes the buffer when its oldest visit has waited long enough; waits for a write under way. */
  async flushDue(): Promise<void> {
    await this.#tail;
    const oldest = this.#columns.oldest();
    const waited = oldest !== undefined && this.s.clock.now() - oldest >= FLUSH_DELAY_MS;
    if (waited || this.#waiting.length > 0) await this.#flushLogged();
  }

  /** Writes every waiting visit now; throws when the store refused them (they wait for the next). */
  flush(): Promise<void> {
    this.#writes++;
    const run = this.#tail.then(() => this.#write()).finally(() => {
      if (--this.#writes === 0 && this.#columns.length === 0 && this.#waiting.length === 0) {
        this.#stop();
      }
    });
    this.#tail = run.catch(() => {});
    return run;
  }

  /**
   * Forgets the waiting visits of a target that is gone; resolves once a
   * write under way that held some of them is done (it cannot be called
   * back: delete the target's stored visits after this).
   */
  async forget(kind: VisitTargetKind, id: string): Promise<void> {
    this.#columns.forget(kind, id);
    for (const raw of this.#waiting) forgetIn(raw, kind, id);
    let writing = 0;
    for (const raw of this.#writing) writing += forgetIn(raw, kind, id);
    if (writing > 0) await this.#tail;
  }

  /**
   * Writes what waits, stops looking, closes the worker's writer and ends
   * the worker: call before closing the store.
   */
  async close(): Promise<void> {
    this.#stop();
    try {
      await this.flush();
    } finally {
      await this.#closeWriter().finally(() => workers(this.s).close());
    }
  }

  /** Has the worker close its writer on the store, when it opened one. */
  async #closeWriter(): Promise<void> {
    if (!this.#workerWrites) return;
    this.#workerWrites = false;
    await workers(this.s).run(0, (step) => step(CLOSE_WRITER)).catch((error) =>
      this.s.logger.warn("the visits worker's writer did not close", { error: String(error) })
    );
  }

  async #write(): Promise<void> {
    if (this.#dropped > 0) {
      this.s.logger.warn("visits dropped: the buffer was full", { visits: this.#dropped });
      this.#dropped = 0;
    }
    const raws = this.#waiting;
    this.#waiting = [];
    if (this.#columns.length > 0) raws.push(this.#columns.take());
    if (raws.length === 0) return;
    this.#writing = raws;
    try {
      const { batch } = await this.#prepare(raws);
      if (batch !== null && (batch.packs.length > 0 || batch.hours.length > 0)) {
        await this.s.store.visits.write(batch);
      }
    } catch (error) {
      this.#waiting = this.#kept(raws);
      throw error;
    } finally {
      this.#writing = [];
    }
  }

  /**
   * Has the worker prepare `raws` (grouped, enriched, packed, rolled up) and
   * write them when the store can be reached from there; else it answers the batch.
   */
  async #prepare(raws: RawVisits[]): Promise<VisitJobAnswer> {
    const days = new Set<number>();
    for (const raw of raws) {
      let last = Number.NaN;
      for (let row = 0; row < raw.count; row++) {
        const day = dayOf(raw.times[row]);
        if (day !== last) days.add(last = day);
      }
    }
    const salts: [number, string][] = await Promise.all(
      [...days].map(async (day): Promise<[number, string]> => [day, await daySalt(this.s, day)]),
    );
    const { settings } = this.s;
    const writeTo = this.s.store.visits.address;
    const job: VisitJob = {
      raws,
      salts,
      countBots: settings.get("analyticsCountBots"),
      geoPath: settings.get("analyticsGeoLite2Path"),
      writeTo,
    };
    if (writeTo !== null) this.#workerWrites = true;
    const answer = await workers(this.s).run(0, (step) => step(job)) as VisitJobAnswer;
    this.#warnGeo(job.geoPath, answer.geoError);
    return answer;
  }

  /** Logs, once a path, that the GeoLite2 file could not be read. */
  #warnGeo(path: string | null, error: string | null): void {
    const warned = geoWarned(this.s);
    if (error === null) {
      if (warned.path === path) warned.path = null;
      return;
    }
    if (warned.path === path) return;
    warned.path = path;
    this.s.logger.warn("the GeoLite2 database could not be read; visits get no country", {
      path,
      error,
    });
  }

  /** The newest of `raws` holding at most {@link MAX_WAITING} visits; the rest dropped, logged. */
  #kept(raws: RawVisits[]): RawVisits[] {
    let room = MAX_WAITING;
    let dropped = 0;
    const kept: RawVisits[] = [];
    for (let i = raws.length - 1; i >= 0; i--) {
      const raw = raws[i];
      const count = raw.count;
      if (room <= 0) dropped += visitsIn(raw);
      else if (count <= room) kept.push(raw);
      else {
        const newest = newestOf(raw, room);
        kept.push(newest);
        dropped += visitsIn(raw) - visitsIn(newest);
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
}

/** The visits worker's counts (started, ended, alive), for tests. */
export function visitWorkerStats(s: Services): PoolStats {
  return workers(s).stats();
}

/** This services object's buffer. */
export const visitRecorder = perServices((s: Services) => new VisitRecorder(s));
