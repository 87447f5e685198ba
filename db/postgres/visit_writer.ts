/**
 * The visits worker's own writer on PostgreSQL (`../visit_writer.ts`): one
 * connection of its own to the store's server (closed after a minute
 * unused), writing prepared batches as the store does (`visits.ts`).
 */
import type { OwnVisitWriter } from "../visit_batch.ts";
import { openClient } from "./client.ts";
import { PostgresVisits } from "./visits.ts";

/** Seconds the writer's connection stays open unused. */
const IDLE_SECONDS = 60;

/** A writer of prepared batches on a connection of its own to `url`. */
export function openPostgresVisitWriter(url: string): OwnVisitWriter {
  const sql = openClient(url, { max: 1, name: "ferry-visits", idleSeconds: IDLE_SECONDS });
  const visits = new PostgresVisits(sql);
  return {
    write: (batch) => visits.write(batch),
    close: () => sql.end({ timeout: 5 }),
  };
}
