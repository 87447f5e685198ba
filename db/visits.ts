/**
 * Visits: each recorded visit of a short URL or a file (its time, the
 * referrer's host, browser, OS, device class, bot flag, country and a
 * visitor hash that changes every day), kept raw for the retention period,
 * and rolled up per hour as it is written, so that a range is answered from
 * at most one row per hour whatever the number of visits.
 *
 * A roll-up exists per target (`url`, `file`), per owner (`owner`: every
 * link and file of one user) and for the server (`server`, id `*`). Each
 * hour's row holds its visits, its dimensions' counts and a HyperLogLog
 * sketch of its visitors (`hll.ts`: exact in practice up to 3,072 visitors
 * an hour, beyond that an estimate within ±2.4 % in 99.7 % of cases), merged
 * with each batch (a union: a visitor counts once however many batches and
 * instances bring it). An hour's unique visitors are its sketch's estimate;
 * a day's, the estimate of the union of its hours' sketches, kept as the
 * day's own sketch (merged by the same batches), so that a month reads 30
 * sketches, not 720 (`visit_uniques.ts`). The visitor hash is salted per day, so a visitor
 * cannot be followed from one day to the next: over several days the unique
 * count is a sum of each day's (visitor-days).
 *
 * Hours written before sketches (PostgreSQL before migration 037, Deno KV
 * before schema 11) keep their exact counts (`hourUniques`: visitors first
 * seen in the hour; `dayUniques`: its day's visitors first seen in it), which
 * are added to what their sketches estimate: a visitor of such an hour or
 * day who came again after the upgrade counts twice there.
 */

import type { Sketch } from "./hll.ts";

/** What a visit is of. */
export type VisitTargetKind = "url" | "file";

/** What a roll-up counts: one target, one owner's links and files, or the whole server. */
export type VisitScopeKind = VisitTargetKind | "owner" | "server";

/** One roll-up's identity. */
export interface VisitScope {
  kind: VisitScopeKind;
  id: string;
}

/** The id of the server-wide roll-up. */
export const SERVER_SCOPE: VisitScope = { kind: "server", id: "*" };

/** The dimensions visits are counted by, besides time. */
export const VISIT_DIMENSIONS = ["referrer", "country", "browser", "os", "device"] as const;
/** One dimension. */
export type VisitDimension = typeof VISIT_DIMENSIONS[number];

/** One recorded visit. The client's address is never part of it. */
export interface VisitRecord {
  targetKind: VisitTargetKind;
  targetId: string;
  /** The target's owner when it was visited; `null` for an owner-less target. */
  ownerId: string | null;
  at: Date;
  /** The host of the `Referer`, without scheme, path or query; `null` without one. */
  referrer: string | null;
  /** ISO 3166-1 alpha-2 code, when a GeoLite2-Country database is configured and knows the address. */
  country: string | null;
  browser: string | null;
  os: string | null;
  /** `desktop`, `mobile`, `tablet`, `console`, `tv`, `wearable`, `embedded` or `bot`. */
  device: string;
  bot: boolean;
  /** A keyed hash of the address and user agent under the day's salt (`core/visits/salt.ts`), 16 hex digits. */
  visitor: string;
}

/**
 * Visits alike in everything but their time (one visitor's visits of one
 * target with the same referrer host and agent): one record and each visit's
 * time. Batches are written as groups, so that a busy link's visits cost the
 * store an entry per visitor and batch rather than one per visit; a group
 * stands for exactly the {@link VisitRecord}s it expands to
 * (`visitsOf` in `visit_rollup.ts`).
 */
export interface VisitGroup extends Omit<VisitRecord, "at"> {
  /** Each visit's time (ms since the epoch); at least one. */
  times: number[];
}

/** One hour of a roll-up. */
export interface VisitHour {
  /** The hour's start (UTC). */
  hour: Date;
  visits: number;
  /** Exact count carried from before sketches: visitors first seen in this hour (else 0). */
  hourUniques: number;
  /** Exact count carried from before sketches: its day's visitors first seen in it (else 0). */
  dayUniques: number;
  /** The sketch of the hour's visitors counted since sketches; `null` when none. */
  sketch: Sketch | null;
}

/** One day of a roll-up: the union of its hours' sketches. */
export interface VisitDay {
  /** The day's start (UTC). */
  day: Date;
  sketch: Sketch;
}

/** How often one value of one dimension was seen in a range. */
export interface VisitDimensionCount {
  dimension: VisitDimension;
  value: string;
  count: number;
}

/** One hour of a roll-up as a bulk write gives it (benchmarks, imports of aggregates). */
export interface VisitHourWrite extends Omit<VisitHour, "sketch"> {
  /** Visitors to merge into the hour's sketch. */
  sketch?: Sketch;
  scope: VisitScope;
  dimensions: VisitDimensionCount[];
}

/** Visits in the store. */
export interface VisitStore {
  /**
   * Stores the visits of `groups` (raw) and adds them to the hourly roll-ups
   * of their target, owner and the server, their visitors merged into each
   * hour's and each day's sketch (one read and write of each a batch),
   * however many instances write at once. (`groupVisits` in `visit_rollup.ts` makes groups of records.)
   */
  add(groups: VisitGroup[]): Promise<void>;
  /**
   * The hours of `scope` in `[from, to)`, oldest first; hours without visits
   * are absent. `sketches` false: every `sketch` is `null`, not read (a read
   * by day or month, which needs {@link days}' instead).
   */
  hours(scope: VisitScope, from: Date, to: Date, sketches?: boolean): Promise<VisitHour[]>;
  /** The days of `scope` with a sketch in `[from, to)` (day starts), oldest first. */
  days(scope: VisitScope, from: Date, to: Date): Promise<VisitDay[]>;
  /** Every dimension's counts of `scope` over the hours in `[from, to)`. */
  dimensions(scope: VisitScope, from: Date, to: Date): Promise<VisitDimensionCount[]>;
  /** The raw visits of one target, oldest first (exports). */
  list(kind: VisitTargetKind, id: string): AsyncIterable<VisitRecord>;
  /**
   * Deletes one target's visits and roll-up, and takes its counts out of its
   * owner's (`ownerId`) and the server's: visits, dimensions and the exact
   * unique counts carried from before sketches; their sketches keep the
   * target's visitors (a union cannot be undone; unique counts are read no
   * higher than the visits, `visit_uniques.ts`). Returns how many raw visits went.
   */
  deleteTarget(kind: VisitTargetKind, id: string, ownerId: string | null): Promise<number>;
  /**
   * {@link deleteTarget} of many targets of one kind at once (a bulk delete of
   * files), in a few statements a batch where the store allows.
   */
  deleteTargets(
    kind: VisitTargetKind,
    targets: { id: string; ownerId: string | null }[],
  ): Promise<number>;
  /** Deletes one owner's roll-up (the user is gone). */
  deleteOwner(ownerId: string): Promise<void>;
  /**
   * Deletes up to `limit` raw visits, roll-up hours (with their sketches) and
   * day sketches older than `before`; returns how many records went, `0` when nothing is
   * left to delete.
   */
  deleteBefore(before: Date, limit: number): Promise<number>;
  /** The salt of `day` (`YYYY-MM-DD`): the stored one, else `fresh`, stored first. */
  salt(day: string, fresh: string): Promise<string>;
  /** Deletes the salts of days before `day`; returns how many. */
  deleteSaltsBefore(day: string): Promise<number>;
  /** Writes roll-up hours as given, adding to what is there (benchmarks' bulk load). */
  addHours(hours: VisitHourWrite[]): Promise<void>;
}
