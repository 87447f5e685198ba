/**
 * Exports carry file records, not bytes: after an import the operator copies
 * the upload directory or bucket. This lists the files whose bytes the
 * datasource does not hold.
 */
import type { Services } from "../services.ts";

/** The names of stored files (pending uploads aside) that have no bytes in the datasource. */
export async function* missingFiles(s: Services): AsyncIterable<string> {
  for await (const file of s.store.files.iterate()) {
    if (!file.pending && await s.datasource.size(file.name) === null) yield file.name;
  }
}
