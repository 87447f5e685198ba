/**
 * The visits worker: a batch's work off the server's thread. It takes the
 * recorder's raw columns (`columns.ts`) with what the batch needs of the
 * server (each day's salt, whether bots count, the GeoLite2 file), makes the
 * groups (`batch.ts`: user agents parsed, bot check, country, visitor hash),
 * packs and rolls them up (`db/visit_batch.ts`), and answers with the
 * ready batch, its byte arrays moved rather than copied; the recorder then
 * has the store write it (the store stays on the server's thread). One
 * worker, started by the first batch (`recorder.ts`).
 */
import { batchBuffers, prepareBatch, type VisitBatch } from "../../db/visit_batch.ts";
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
}

/** What the worker answers. */
export interface VisitJobAnswer {
  batch: VisitBatch;
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

/** Prepares one batch: its groups, packed and rolled up. */
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
  return { batch: prepareBatch(groups), geoError: geo.error };
}

if (inWorkerNamed(VISIT_WORKER)) {
  serveJobs(async (message) => {
    const answer = await runVisitJob(message as VisitJob);
    return { value: answer, transfer: batchBuffers(answer.batch) };
  }, { collect: false });
}
