/**
 * A user's cached file list (`db/cached_files.ts`, as Deno KV uses it): what
 * another process wrote shows once the list is past its second, and the old
 * list is answered while the new read is under way; a write through this
 * process is seen at once, and a read begun before it never replaces it.
 */
import assert from "node:assert/strict";
import { CachedFiles } from "../../db/cached_files.ts";
import type { FileLimits, FileQuery } from "../../db/files.ts";
import { FRESH_MS } from "../../db/fresh_cache.ts";
import { KvFiles } from "../../db/kv/files.ts";
import { fileRecord } from "../helpers/stores.ts";

const NO_LIMITS: FileLimits = { maxBytes: null, maxFiles: null };
const USER = "user-1";
const QUERY: FileQuery = { userId: USER, offset: 0, limit: 10, sortBy: "name", order: "asc" };

/**
 * A test with the cached store of this process (`here`) and the plain one of
 * another (`there`) over one database, where `here` has listed its file
 * `a.txt` and `there` has since added `b.txt`.
 */
function twoProcessTest(name: string, fn: (here: CachedFiles) => Promise<void>) {
  Deno.test(`cached lists: ${name}`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      const here = new CachedFiles(new KvFiles(kv), true);
      await here.create(fileRecord(USER, { name: "a.txt" }), NO_LIMITS);
      assert.deepEqual(await names(here), ["a.txt"]);
      await new KvFiles(kv).create(fileRecord(USER, { name: "b.txt" }), NO_LIMITS);
      await fn(here);
    } finally {
      kv.close();
    }
  });
}

const names = async (files: CachedFiles) => (await files.list(QUERY)).files.map((f) => f.name);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

twoProcessTest(
  "another process's file shows after a second, the old list meanwhile",
  async (here) => {
    assert.deepEqual(await names(here), ["a.txt"], "within its second");
    await pause(FRESH_MS + 50);
    assert.deepEqual(await names(here), ["a.txt"], "answered while the new read runs");
    let listed = await names(here);
    for (let i = 0; i < 200 && listed.length < 2; i++) {
      await pause(10);
      listed = await names(here);
    }
    assert.deepEqual(listed, ["a.txt", "b.txt"], "the new read replaced it");
  },
);

twoProcessTest("a write here is seen at once, past its second too", async (here) => {
  await pause(FRESH_MS + 50);
  assert.deepEqual(await names(here), ["a.txt"], "the old list, a new read begun");
  await here.create(fileRecord(USER, { name: "c.txt" }), NO_LIMITS);
  assert.deepEqual(await names(here), ["a.txt", "b.txt", "c.txt"]);
  await pause(100);
  assert.deepEqual(
    await names(here),
    ["a.txt", "b.txt", "c.txt"],
    "the read begun before the write did not replace what came after it",
  );
});
