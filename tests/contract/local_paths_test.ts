/**
 * What the local datasource adds to the datasource contract: its staging
 * directory `<root>/.tmp` is off limits to object names and is left empty.
 */

import assert from "node:assert/strict";
import { SizeLimitError, UnsafeNameError } from "../../storage/datasource.ts";
import { LocalDatasource } from "../../storage/local.ts";

Deno.test("local datasource: the staging directory is not an object name", async () => {
  const root = await Deno.makeTempDir({ prefix: "ferry-local-" });
  const ds = new LocalDatasource(root);
  try {
    await ds.put("kept.txt", ReadableStream.from([new Uint8Array([1, 2, 3])]));
    for (const name of [".tmp", ".tmp/x", ".tmp/a/b"]) {
      await assert.rejects(ds.put(name, ReadableStream.from([])), UnsafeNameError);
      await assert.rejects(ds.get(name), UnsafeNameError);
      await assert.rejects(ds.size(name), UnsafeNameError);
      await assert.rejects(ds.delete(name), UnsafeNameError);
      await assert.rejects(ds.rename(name, "kept.txt"), UnsafeNameError);
      await assert.rejects(ds.rename("kept.txt", name), UnsafeNameError);
    }
    // Only the top-level `.tmp` is reserved; deeper folders of that name are ordinary.
    assert.equal(await ds.put("a/.tmp/b", ReadableStream.from([new Uint8Array([4])])), 1);
    assert.equal(await ds.size("a/.tmp/b"), 1);
  } finally {
    await ds.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("local datasource: puts leave the staging directory empty", async () => {
  const root = await Deno.makeTempDir({ prefix: "ferry-local-" });
  const ds = new LocalDatasource(root);
  try {
    await ds.put("ok.bin", ReadableStream.from([new Uint8Array(10)]));
    await assert.rejects(
      ds.put("over.bin", ReadableStream.from([new Uint8Array(10)]), { limit: 9 }),
      SizeLimitError,
    );
    await assert.rejects(
      ds.put(
        "broken.bin",
        ReadableStream.from((function* () {
          yield new Uint8Array(10);
          throw new Error("client went away");
        })()),
      ),
      /client went away/,
    );
    assert.deepEqual(await Array.fromAsync(Deno.readDir(`${root}/.tmp`)), []);
    assert.equal(await ds.size("broken.bin"), null);
  } finally {
    await ds.close();
    await Deno.remove(root, { recursive: true });
  }
});
