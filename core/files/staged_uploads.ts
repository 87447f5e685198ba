/**
 * What small uploads leave staged when they stop half-way (issue #18). A
 * small upload stages its bytes under the file's id, commits the record,
 * then publishes the bytes under the record's name; a process stopped
 * between the commit and the publishing leaves committed bytes staged, and
 * one stopped before the commit leaves bytes nobody recorded.
 */
import type { Services } from "../services.ts";
import type { Staging } from "../../storage/datasource.ts";
import { NotFoundError } from "../../storage/datasource.ts";

/** How long staged bytes with no record may wait before they are taken for abandoned. */
export const STAGED_ABANDONED_MS = 60 * 60 * 1000;

/**
 * Publishes staged bytes whose record was committed, under its name, and
 * removes those with no record staged over {@link STAGED_ABANDONED_MS} ago
 * (a younger one may be an upload still under way). Safe beside uploads in
 * flight, whose own publishing takes a lost race for done
 * ({@link publishStaged}). Returns how many it settled.
 */
export async function settleStagedUploads(s: Services): Promise<number> {
  const staging = s.datasource.staging;
  if (!staging) return 0;
  const abandonedBefore = s.clock.now() - STAGED_ABANDONED_MS;
  let settled = 0;
  for await (const { id, writtenAt } of staging.list()) {
    const record = await s.store.files.get(id);
    if (record && !record.pending) {
      await publishStaged(s, staging, id, record.name);
      s.logger.warn("published the bytes of an upload stopped after its commit", { id });
      settled++;
    } else if (!record && writtenAt.getTime() < abandonedBefore) {
      await staging.discard(id);
      settled++;
    }
  }
  return settled;
}

/**
 * Publishes the staged bytes of file `id` under `name`. Finding them gone
 * while an object of that name exists means another process settled them
 * first ({@link settleStagedUploads}), which is as good.
 */
export async function publishStaged(
  s: Services,
  staging: Staging,
  id: string,
  name: string,
): Promise<void> {
  try {
    await staging.publish(id, name);
  } catch (error) {
    if (error instanceof NotFoundError && await s.datasource.size(name) !== null) return;
    throw error;
  }
}
