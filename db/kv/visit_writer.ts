/**
 * The visits worker's own writer on a Deno KV file (`../visit_writer.ts`):
 * a handle of its own on the file, patient like the store's (`patient.ts`:
 * a write that meets the server's handle holding SQLite's write lock waits
 * for it), writing prepared batches as the store does (`visits.ts`).
 */
import type { OwnVisitWriter } from "../visit_batch.ts";
import { patient } from "./patient.ts";
import { KvVisits } from "./visits.ts";

/** A writer of prepared batches on its own handle of the file `path`. */
export async function openKvVisitWriter(path: string): Promise<OwnVisitWriter> {
  const kv = patient(await Deno.openKv(path));
  const visits = new KvVisits(kv);
  return {
    write: (batch) => visits.write(batch),
    close() {
      kv.close();
      return Promise.resolve();
    },
  };
}
