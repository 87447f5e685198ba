/**
 * The files a test app's background work or bulk delete reads (issue #32):
 * seeded files with their bytes, and a watch on the file store that fails a
 * pass over every file and counts the records read from the candidates'
 * indexes, so a test asserts that a task reads only what it needs.
 */
import type { FileRecord } from "../../db/files.ts";
import type { TestApp } from "./app.ts";
import { fileRecord } from "./stores.ts";

/** Stores `n` complete files of `userId` (records in one write, then their bytes). */
export async function seedFiles(
  app: TestApp,
  userId: string | null,
  n: number,
  extra: (i: number) => Partial<FileRecord> = () => ({}),
): Promise<FileRecord[]> {
  const files = Array.from({ length: n }, (_, i) => fileRecord(userId, { size: 3, ...extra(i) }));
  await app.services.store.files.createMany(files);
  for (const f of files) {
    await app.services.datasource.put(f.name, ReadableStream.from([new Uint8Array(f.size)]));
  }
  return files;
}

/** What {@link watchReads} counted. */
export interface FileReads {
  /** Records the candidates' reads answered. */
  candidates: number;
}

/**
 * Makes `app`'s file store throw on `iterate` (a pass over every file) and
 * counts the records `candidates` answers.
 */
export function watchReads(app: TestApp): FileReads {
  const files = app.services.store.files;
  const reads: FileReads = { candidates: 0 };
  files.iterate = () => {
    throw new Error("a pass read every file");
  };
  const candidates = files.candidates.bind(files);
  files.candidates = async (which, limit) => {
    const found = await candidates(which, limit);
    reads.candidates += found.length;
    return found;
  };
  return reads;
}
