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

/** The cached store of this process and the plain one of another, over one database. */
async function twoProcesses() {
  const kv = await Deno.openKv(":memory:");
  return { kv, here: new CachedFiles(new KvFiles(kv), true), there: new KvFiles(kv) };
}

const names = async (files: CachedFiles) => (await files.list(QUERY)).files.map((f) => f.name);
const pastItsSecond = () => new Promise((resolve) => setTimeout(resolve, FRESH_MS + 50));

Deno.test("cached lists: another process's file shows after a second, the old list meanwhile", async () => {
  const { kv, here, there } = await twoProcesses();
  try {
    await here.create(fileRecord(USER, { name: "a.txt" }), NO_LIMITS);
    assert.deepEqual(await names(here), ["a.txt"]);
    await there.create(fileRecord(USER, { name: "b.txt" }), NO_LIMITS);
    assert.deepEqual(await names(here), ["a.txt"], "within its second");
    await pastItsSecond();
    assert.deepEqual(await names(here), ["a.txt"], "answered while the new read runs");
    let listed = await names(here);
    for (let i = 0; i < 200 && listed.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      listed = await names(here);
    }
    assert.deepEqual(listed, ["a.txt", "b.txt"], "the new read replaced it");
  } finally {
    kv.close();
  }
});

Deno.test("cached lists: a write here is seen at once, past its second too", async () => {
  const { kv, here, there } = await twoProcesses();
  try {
    await here.create(fileRecord(USER, { name: "a.txt" }), NO_LIMITS);
    assert.deepEqual(await names(here), ["a.txt"]);
    await there.create(fileRecord(USER, { name: "b.txt" }), NO_LIMITS);
    await pastItsSecond();
    assert.deepEqual(await names(here), ["a.txt"], "the old list, a new read begun");
    await here.create(fileRecord(USER, { name: "c.txt" }), NO_LIMITS);
    assert.deepEqual(await names(here), ["a.txt", "b.txt", "c.txt"]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      await names(here),
      ["a.txt", "b.txt", "c.txt"],
      "the read begun before the write did not replace what came after it",
    );
  } finally {
    kv.close();
  }
});
