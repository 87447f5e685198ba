/**
 * A writer of prepared batches (`visit_batch.ts`) on a store's own address,
 * opened by the visits worker (`core/visits/visit_worker.ts`) so that the
 * batches' writes leave the server's thread too: a handle of its own on a
 * Deno KV file (`kv/visit_writer.ts`) or a connection of its own to
 * PostgreSQL (`postgres/visit_writer.ts`), each loaded only for its kind.
 */
import type { OwnVisitWriter, VisitStoreAddress } from "./visit_batch.ts";

/** A writer of its own on the store at `address`. */
export async function openVisitWriter(address: VisitStoreAddress): Promise<OwnVisitWriter> {
  if (address.kind === "kv") {
    return await (await import("./kv/visit_writer.ts")).openKvVisitWriter(address.path);
  }
  return (await import("./postgres/visit_writer.ts")).openPostgresVisitWriter(address.url);
}
