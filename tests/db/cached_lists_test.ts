/**
 * A user's cached file list (`db/cached_files.ts`, as Deno KV uses it): what
 * another process wrote shows once the list is past its second, and the old
 * list is answered while the new read is under way; a write through this
 * process is seen at once, and a read begun before it never replaces it.
 * The second passes on a manual clock, and a read is held open by a gate, so
 * nothing here waits for time.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../core/clock.ts";
import { CachedFiles, FILES_FRESH_MS } from "../../db/cached_files.ts";
import type { FileLimits, FileQuery, FileRecord } from "../../db/files.ts";
import { KvFiles } from "../../db/kv/files.ts";
import { fileRecord } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const USER = "user-1";
const QUERY: FileQuery = { userId: USER, offset: 0, limit: 10, sortBy: "name", order: "asc" };

/** {@link KvFiles} whose next list read, once held, answers only when released. */
class GatedFiles extends KvFiles {
  #held: Promise<void> | null = null;
  /** The last list read, as its caller sees it. */
  lastRead: Promise<FileRecord[]> = Promise.resolve([]);

  /** Holds the next list read's answer until the returned function is called. */
  holdNext(): () => void {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#held = promise;
    return resolve;
  }

  override listByUser(userId: string): Promise<FileRecord[]> {
    const held = this.#held;
    this.#held = null;
    this.lastRead = (async () => {
      const files = await super.listByUser(userId);
      await held;
      return files;
    })();
    return this.lastRead;
  }
}

/**
 * A test with the cached store of this process (`here`, over `gated`) and the
 * plain one of another over one database, where `here` has listed its file
 * `a.txt` and the other has since added `b.txt`.
 */
function twoProcessTest(
  name: string,
  fn: (here: CachedFiles, gated: GatedFiles, clock: ManualClock) => Promise<void>,
) {
  Deno.test(`cached lists: ${name}`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      const clock = new ManualClock();
      const gated = new GatedFiles(kv);
      const here = new CachedFiles(gated, clock, true);
      await here.create(fileRecord(USER, { name: "a.txt" }), NO_LIMITS);
      assert.deepEqual(await names(here), ["a.txt"]);
      await new KvFiles(kv).create(fileRecord(USER, { name: "b.txt" }), NO_LIMITS);
      await fn(here, gated, clock);
    } finally {
      kv.close();
    }
  });
}

const names = async (files: CachedFiles) => (await files.list(QUERY)).files.map((f) => f.name);
/** One turn of the event loop, no time: what a settled read set off has run by its end. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

twoProcessTest(
  "another process's file shows after a second, the old list meanwhile",
  async (here, gated, clock) => {
    assert.deepEqual(await names(here), ["a.txt"], "within its second");
    clock.advance(FILES_FRESH_MS);
    const release = gated.holdNext();
    assert.deepEqual(await names(here), ["a.txt"], "answered while the new read runs");
    assert.deepEqual(await names(here), ["a.txt"], "still, and one read at a time");
    release();
    await gated.lastRead;
    await turn();
    assert.deepEqual(await names(here), ["a.txt", "b.txt"], "the new read replaced it");
  },
);

twoProcessTest("a write here is seen at once, past its second too", async (here, gated, clock) => {
  clock.advance(FILES_FRESH_MS);
  const release = gated.holdNext();
  assert.deepEqual(await names(here), ["a.txt"], "the old list, a new read begun");
  const begunBefore = gated.lastRead;
  await here.create(fileRecord(USER, { name: "c.txt" }), NO_LIMITS);
  assert.deepEqual(await names(here), ["a.txt", "b.txt", "c.txt"]);
  release();
  await begunBefore;
  await turn();
  assert.deepEqual(
    await names(here),
    ["a.txt", "b.txt", "c.txt"],
    "the read begun before the write did not replace what came after it",
  );
});
