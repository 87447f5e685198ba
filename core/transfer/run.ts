/**
 * The frame of every import: read and validate the whole document into a
 * spool (nothing written yet), then run the kinds' steps inside one store
 * transaction, so an import that fails for any reason leaves nothing behind.
 */
import type { UserRecord } from "../../db/users.ts";
import type { Services } from "../services.ts";
import { type ImportContext, ImportReport, newContext, type Progress } from "./context.ts";
import { type DocumentLayout, type ReadDocument, readDocument } from "./read.ts";
import { Spool } from "./spool.ts";

/** Who imports, and how progress is reported. */
export interface ImportRun {
  /** The importing user; merges go into it. */
  caller: UserRecord | null;
  onProgress?: Progress;
}

/** Steps run inside the transaction, reading records from the spool. */
export type ImportSteps<T> = (
  ctx: ImportContext,
  spool: Spool,
  doc: ReadDocument,
) => Promise<T>;

/** Reads `body` with `layout`, then runs `steps` in a transaction; returns their result and the report. */
export async function runImport<T>(
  s: Services,
  body: ReadableStream<Uint8Array>,
  layout: DocumentLayout,
  run: ImportRun,
  mergeFrom: (doc: ReadDocument) => string | null,
  steps: ImportSteps<T>,
): Promise<{ result: T; report: ImportReport }> {
  const spool = await Spool.create(s.settings.get("coreTempDirectory"))
    .catch(() => Spool.create(null));
  try {
    const doc = await readDocument(body, layout, spool);
    await spool.seal();
    const report = new ImportReport(s, spool.total(), run.onProgress);
    const result = await s.store.transaction(async (store) => {
      const caller = run.caller && await store.users.get(run.caller.id);
      const ctx = newContext(s, store, caller, mergeFrom(doc), report);
      return await steps(ctx, spool, doc);
    });
    return { result, report };
  } finally {
    await spool.dispose();
  }
}

/** Runs `step` on every spooled record of `kind`, ticking the report. */
export async function eachRecord<R>(
  ctx: ImportContext,
  spool: Spool,
  kind: string,
  step: (ctx: ImportContext, record: R) => Promise<void>,
): Promise<void> {
  for await (const record of spool.read<R>(kind)) {
    await step(ctx, record);
    ctx.report.tick();
  }
}
