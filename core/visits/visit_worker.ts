/**
 * The visits worker: a batch's work off the server's thread. It takes the
 * recorder's raw columns (`columns.ts`) with what the batch needs of the
 * server (each day's salt, whether bots count, the GeoLite2 file, where the
 * store is), makes the groups (`batch.ts`: user agents parsed, bot check,
 * country, visitor hash), packs and rolls them up (`db/visit_batch.ts`), and
 * writes the batch itself through a writer of its own on the store
 * (`db/visit_writer.ts`: its own Deno KV handle on the file, or its own
 * PostgreSQL connection; opened by the first batch, kept for the next, closed
 * by {@link CLOSE_WRITER}). A store no other thread can reach (Deno KV in
 * memory) gets the ready batch back instead, its byte arrays moved rather
 * than copied, for the recorder to have the store write it. One worker,
 * started by the first batch (`recorder.ts`).
 */
import {
  batchBuffers,
  type OwnVisitWriter,
  prepareBatch,
  type VisitBatch,
  type VisitStoreAddress,
} from "../../db/visit_batch.ts";
import { openVisitWriter } from "../../db/visit_writer.ts";
import { inWorkerNamed, serveJobs } from "../worker_pool.ts";
import { groupsOf } from "./batch.ts";
import type { RawVisits } from "./columns.ts";
import { countryLookupAt } from "./geo.ts";
import { type VisitorHasher, visitorHasher } from "./salt.ts";

/** The name the visits worker is started under. */
export const VISIT_WORKER = "ferry-visits";

/**
 * The user-agent parser and bot list (ua-parser-js, isbot), loaded by the
 * worker's first batch: the server's thread imports this module for its
 * name, never for them (bench/results/memory.md).
 */
const agents = () => import("./agent.ts");

/** One batch to prepare. */
export interface VisitJob {
  /** The batch's visits (several when an earlier batch waits to be written again). */
  raws: RawVisits[];
  /** The salt of each day (its start, ms) the visits fall on. */
  salts: [number, string][];
  /** `analyticsCountBots`. */
  countBots: boolean;
  /** `analyticsGeoLite2Path`. */
  geoPath: string | null;
  /** Where the worker writes the batch (`VisitBatchWriter.address`); `null`: it answers it. */
  writeTo: VisitStoreAddress | null;
}

/** The message that has the worker close its writer (before the store closes). */
export const CLOSE_WRITER = "close-writer";

/** What the worker answers a {@link VisitJob}. */
export interface VisitJobAnswer {
  /** The batch, when the job had no `writeTo`; `null` when the worker wrote it. */
  batch: VisitBatch | null;
  /** Why the GeoLite2 file could not be read (the visits then have no country); `null`: it could. */
  geoError: string | null;
}

/** The hashers of the salts seen lately (a day's salt never changes). */
const hashers = new Map<string, VisitorHasher>();

/** The hasher under `salt`, made once. */
function hasherOf(salt: string): VisitorHasher {
  let hasher = hashers.get(salt);
  if (hasher === undefined) {
    if (hashers.size >= 4) hashers.clear();
    hashers.set(salt, hasher = visitorHasher(salt));
  }
  return hasher;
}

/** The worker's writer and the address it was opened on. */
let own: { key: string; writer: Promise<OwnVisitWriter> } | null = null;

/** The writer on `address`, opened by the first batch (another address's closed first). */
async function writerAt(address: VisitStoreAddress): Promise<OwnVisitWriter> {
  const key = JSON.stringify(address);
  if (own?.key !== key) {
    await closeWriter();
    own = { key, writer: openVisitWriter(address) };
    own.writer.catch(() => own = null);
  }
  return await own.writer;
}

/** Closes the worker's writer, if open. */
async function closeWriter(): Promise<void> {
  const open = own;
  own = null;
  if (open !== null) await (await open.writer.catch(() => null))?.close();
}

/**
 * Prepares one batch (its groups, packed and rolled up) and writes it to
 * `job.writeTo`; without one, answers it.
 */
export async function runVisitJob(job: VisitJob): Promise<VisitJobAnswer> {
  const [{ agentFacts, referrerHost }, geo] = await Promise.all([
    agents(),
    countryLookupAt(job.geoPath),
  ]);
  const salts = new Map(job.salts);
  const enrich = {
    agentFacts,
    referrerHost,
    country: geo.lookup,
    countBots: job.countBots,
    hasher(day: number) {
      const salt = salts.get(day);
      if (salt === undefined) throw new Error(`no salt for the day starting at ${day}`);
      return hasherOf(salt);
    },
  };
  const groups = job.raws.flatMap((raw) => groupsOf(raw, enrich));
  const batch = prepareBatch(groups);
  if (job.writeTo === null) return { batch, geoError: geo.error };
  if (batch.packs.length > 0 || batch.hours.length > 0) {
    await (await writerAt(job.writeTo)).write(batch);
  }
  return { batch: null, geoError: geo.error };
}

if (inWorkerNamed(VISIT_WORKER)) {
  serveJobs(async (message) => {
    if (message === CLOSE_WRITER) {
      await closeWriter();
      return { value: null };
    }
    const answer = await runVisitJob(message as VisitJob);
    return { value: answer, transfer: answer.batch === null ? [] : batchBuffers(answer.batch) };
  }, { collect: false });
}
