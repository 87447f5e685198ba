/**
 * Removed files' search keys on Deno KV, removed after them
 * (`db/kv/search_sweep.ts`, KV schema 18): a removal (one, or a bulk one)
 * removes its file's type key at once and notes the file; its name keys
 * stay until the background build's sweep, and meanwhile no search finds
 * the file; the sweep leaves exactly the keys of the records stored, and
 * one that took a few notes is finished by the next; a removal within a
 * transaction removes them at once.
 */
import assert from "node:assert/strict";
import type { FileQuery, FileRecord } from "../../db/files.ts";
import { searchKeys } from "../../db/kv/file_search.ts";
import { openKvStore } from "../../db/kv/mod.ts";
import { patient } from "../../db/kv/patient.ts";
import { GONE, sweepGone } from "../../db/kv/search_sweep.ts";
import { fileRecord, storedUser } from "../helpers/stores.ts";
import { inTempStore } from "../helpers/kv_backlog.ts";

const SEARCH_PREFIXES = [["file_sfx2"], ["file_sfx_long"], ["file_by_type"]];

/** Every search key, serialized, sorted. */
async function searchIndex(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for (const prefix of SEARCH_PREFIXES) {
    for await (const { key } of kv.list({ prefix })) out.push(JSON.stringify(key));
  }
  return out.sort();
}

/** The search keys `records` should have, serialized, sorted. */
const expectedIndex = (records: FileRecord[]) =>
  records.flatMap((f) => searchKeys(f).map((k) => JSON.stringify(k.key))).sort();

/** The notes of removed files. */
const notes = async (kv: Deno.Kv) => (await Array.fromAsync(kv.list({ prefix: GONE }))).length;

Deno.test("kv search sweep: removed files' name keys stay until the sweep, found by no search; the sweep leaves exactly the stored files' keys, also after a partial one", async () => {
  await inTempStore(async (path) => {
    const store = await openKvStore(path);
    const kv = patient(await Deno.openKv(path));
    try {
      const user = await storedUser(store);
      const files = Array.from({ length: 60 }, (_, i) =>
        fileRecord(user.id, {
          name: `sweep${i}-${crypto.randomUUID().slice(0, 8)}.png`,
          originalName: i % 4 ? `Holiday sweep ${i} ${"long ".repeat(i % 7 ? 1 : 20)}.PNG` : null,
          type: i % 3 ? "image/png" : "video/mp4",
        }));
      await store.files.createMany(files);
      await store.buildSearchKeys();
      await store.backlog!.hold(); // no sweep in the background until released
      const gone = files.slice(0, 40);
      await store.files.deleteMany(gone.slice(1).map((f) => f.id));
      await store.files.delete(gone[0].id);
      const stored = await store.files.listByUser(user.id);
      assert.equal(stored.length, 20);

      assert.equal(await notes(kv), 40);
      const index = await searchIndex(kv);
      assert.ok(index.length > expectedIndex(stored).length, "the removed files' name keys stay");
      for (const f of gone) {
        const type = JSON.stringify(searchKeys(f).find((k) => k.key[0] === "file_by_type")!.key);
        assert.ok(!index.includes(type), "a removed file's type key goes at once");
      }
      const search = async (field: "name" | "originalName" | "type", query: string) =>
        (await store.files.list(
          {
            userId: user.id,
            offset: 0,
            limit: 100,
            sortBy: "createdAt",
            order: "desc",
            search: { field, query },
          } satisfies FileQuery,
        )).files.map((f) => f.id).sort();
      const expected = (match: (f: FileRecord) => boolean) =>
        stored.filter(match).map((f) => f.id).sort();
      const searchesRight = async () => {
        assert.deepEqual(await search("name", "sweep"), expected(() => true));
        assert.deepEqual(await search("name", gone[3].name), []);
        assert.deepEqual(
          await search("originalName", "holiday sweep"),
          expected((f) => f.originalName !== null),
        );
        assert.deepEqual(await search("type", "mp4"), expected((f) => f.type === "video/mp4"));
      };
      await searchesRight();

      // A sweep of a few notes, then the build's.
      assert.equal(await sweepGone(kv, { limit: 5 }), 5);
      assert.equal(await notes(kv), 35);
      await searchesRight();
      store.backlog!.release();
      await store.buildSearchKeys();
      assert.equal(await notes(kv), 0, "every note swept");
      assert.deepEqual(await searchIndex(kv), expectedIndex(stored));
      await searchesRight();

      // Within a transaction (no build to sweep; an undo restores only what it wrote): at once.
      await store.transaction((tx) => tx.files.deleteMany([stored[0].id, stored[1].id]));
      assert.equal(await notes(kv), 0, "none noted");
      assert.deepEqual(await searchIndex(kv), expectedIndex(stored.slice(2)));
    } finally {
      kv.close();
      await store.close();
    }
  });
});
