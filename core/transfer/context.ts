/**
 * What every import step works with: the services bound to the import's
 * transaction, the calling user, the old-id → new-id maps that later kinds
 * link through, and the report that counts imports and logs every skip.
 */
import { z } from "zod";
import type { Backend } from "../../db/store.ts";
import type { UserRecord } from "../../db/users.ts";
import { BASE36, idTimePrefix, type Random, randomString } from "../clock.ts";
import type { Services } from "../services.ts";

/** Called as records are imported: how many are done out of how many. */
export type Progress = (done: number, total: number) => void;

/** One reason some records of one kind were skipped, and how many. */
export interface SkipSummary {
  kind: string;
  reason: string;
  count: number;
}

/** Counts imports and skips; logs each skip with its kind, old id and reason. */
export class ImportReport {
  readonly imported = new Map<string, number>();
  private readonly skips = new Map<string, SkipSummary>();
  private done = 0;

  constructor(
    private readonly s: Services,
    private readonly total: number,
    private readonly onProgress?: Progress,
  ) {}

  /** Counts one imported record of `kind`. */
  add(kind: string): void {
    this.imported.set(kind, (this.imported.get(kind) ?? 0) + 1);
  }

  /** Records and logs that the record `oldId` of `kind` was skipped. */
  skip(kind: string, oldId: string, reason: string): void {
    this.s.logger.warn("import: skipped", { kind, id: oldId, reason });
    const key = `${kind}\n${reason}`;
    const summary = this.skips.get(key) ?? { kind, reason, count: 0 };
    summary.count++;
    this.skips.set(key, summary);
  }

  /** Marks `n` records of the document as handled (imported, skipped or ignored). */
  tick(n = 1): void {
    const before = this.done;
    this.done += n;
    const step = Math.floor(this.done / 250) > Math.floor(before / 250);
    if (this.onProgress && n > 0 && (step || this.done === this.total)) {
      this.onProgress(this.done, this.total);
    }
  }

  /** The skips, by kind and reason. */
  skipped(): SkipSummary[] {
    return [...this.skips.values()];
  }
}

/** The services an import step works with: `store` is the import's transaction, the plain backend. */
export type ImportServices = Omit<Services, "store"> & { store: Backend };

/** The state one import run shares between its steps. */
export interface ImportContext {
  /** The services, with `store` bound to the import's transaction. */
  s: ImportServices;
  store: Backend;
  /** The importing user (merges go into it); `null` from the CLI on an instance without one. */
  caller: UserRecord | null;
  /** The exported id of the user to merge into `caller`, if any. */
  mergeFrom: string | null;
  now: Date;
  /** A new record id; see {@link importIds}. */
  newId: () => string;
  /** Old id → new id, per kind. */
  ids: {
    users: Map<string, string>;
    folders: Map<string, string>;
    files: Map<string, string>;
    urls: Map<string, string>;
  };
  report: ImportReport;
}

/** A fresh context inside a transaction. */
export function newContext(
  s: Services,
  store: Backend,
  caller: UserRecord | null,
  mergeFrom: string | null,
  report: ImportReport,
): ImportContext {
  return {
    s: { ...s, store },
    store,
    caller,
    mergeFrom,
    now: new Date(s.clock.now()),
    newId: importIds(s.random, new Date(s.clock.now())),
    ids: { users: new Map(), folders: new Map(), files: new Map(), urls: new Map() },
    report,
  };
}

/**
 * Ids for one import's records, in the form of `newId` (25 base-36
 * characters after a `c`) but increasing: the import's start time, a
 * counter, then randomness. Records written in id order land next to each
 * other in the stores' indexes (KV's B-tree, Postgres primary keys) instead
 * of all over them, which makes bulk writes several times cheaper.
 */
export function importIds(random: Random, start: Date): () => string {
  const prefix = idTimePrefix(start.getTime());
  let n = 0;
  return () => prefix + (n++).toString(36).padStart(6, "0") + randomString(random, 9, BASE36);
}

/** A date from an export: the parsed string, or `fallback` when it does not parse. */
export function dateOf(value: string, fallback: Date): Date {
  const time = Date.parse(value);
  return Number.isNaN(time) ? fallback : new Date(time);
}

/** An ISO 8601 date string, as Zipline's validator checks it (`Date.parse` succeeds). */
export const IsoDate = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "Invalid date");

/** What an export step reads from. */
export interface ExportContext {
  s: Services;
  /** Every user, oldest first (the per-user collections are grouped by them). */
  users: UserRecord[];
  /** Leave the metrics out. */
  nometrics: boolean;
}

/**
 * One kind of record in the v4 format: its schema, how one record is
 * imported, and the records an export writes.
 */
export interface V4Kind<R = unknown> {
  /** The key under `data`. */
  key: string;
  /** The key of the import response's counts, or `null` for kinds never imported. */
  counted: string | null;
  /** May be absent from a document (Ferry's own kinds, which Zipline's documents lack). */
  optional?: boolean;
  schema: z.ZodType<R>;
  /** Imports one record (or skips it through the report). */
  importRecord?(ctx: ImportContext, record: R): Promise<void>;
  /** Runs after the kind's last record (second passes, batches). */
  finish?(ctx: ImportContext): Promise<void>;
  /** The records an export writes. */
  exportRecords(x: ExportContext): AsyncIterable<R>;
}

/** Node's `process.arch` values, as both export formats record the exporting machine. */
export const Arch = z.enum([
  "arm",
  "arm64",
  "ia32",
  "loong64",
  "mips",
  "mipsel",
  "ppc",
  "ppc64",
  "riscv64",
  "s390",
  "s390x",
  "x64",
]);
