/**
 * The datasource contract: one list of steps, run against every implementation
 * (local disk in a temporary directory, S3 against the test task's s3rver, and
 * S3 again inside a bucket subdirectory).
 */

import assert from "node:assert/strict";
import {
  type Datasource,
  NotFoundError,
  PartSizeError,
  SizeLimitError,
  UnsafeNameError,
} from "../../storage/datasource.ts";
import { LocalDatasource } from "../../storage/local.ts";
import { S3Datasource } from "../../storage/s3.ts";
import { openTestBucket } from "../helpers/datasources.ts";
import { skipWithout } from "../helpers/services.ts";

const MIB = 1024 * 1024;

/** One opened implementation, with a look behind its back at what it really stored. */
interface Subject {
  datasource: Datasource;
  /** Every key the backend holds, as the backend names it (paths under the root, raw bucket keys). */
  stored(): Promise<string[]>;
  /** The raw key under which `name` should be stored. */
  rawKey(name: string): string;
  dispose(): Promise<void>;
}

/** Registers the contract for one implementation. */
function contract(implementation: string, ignore: boolean, open: () => Promise<Subject>) {
  Deno.test({
    name: `datasource contract: ${implementation}`,
    ignore,
    fn: async (t) => {
      const subject = await open();
      const ds = subject.datasource;
      try {
        await t.step("put then get returns the same bytes and put returns the count", async () => {
          const text = new TextEncoder().encode("hello, ferry");
          assert.equal(await ds.put("hello.txt", streamOf(text)), text.byteLength);
          assert.deepEqual(await readAll(await ds.get("hello.txt")), text);

          const big = pattern(3 * MIB + 17, 1);
          assert.equal(await ds.put("big.bin", streamOf(big, 64 * 1024)), big.byteLength);
          assert.deepEqual(await readAll(await ds.get("big.bin")), big);

          assert.equal(await ds.put("empty.bin", streamOf(new Uint8Array(0))), 0);
          assert.deepEqual(await readAll(await ds.get("empty.bin")), new Uint8Array(0));
          assert.equal(await ds.size("empty.bin"), 0);
        });

        await t.step("get of a range returns exactly those bytes", async () => {
          const data = pattern(1000, 2);
          await ds.put("range.bin", streamOf(data));
          const cases = [[0, 0], [999, 999], [100, 199], [0, 999], [1, 998]];
          for (const [start, end] of cases) {
            assert.deepEqual(
              await readAll(await ds.get("range.bin", { start, end })),
              data.subarray(start, end + 1),
              `range ${start}-${end}`,
            );
          }
        });

        await t.step(
          "a range past the end is cut there; one starting past it is refused",
          async () => {
            const data = pattern(1000, 3);
            await ds.put("edge.bin", streamOf(data));
            assert.deepEqual(
              await readAll(await ds.get("edge.bin", { start: 990, end: 5000 })),
              data.subarray(990),
            );
            for (
              const range of [{ start: 1000, end: 1000 }, { start: 5, end: 2 }, {
                start: -1,
                end: 3,
              }]
            ) {
              await assert.rejects(ds.get("edge.bin", range), RangeError, JSON.stringify(range));
            }
            await assert.rejects(ds.get("empty.bin", { start: 0, end: 0 }), RangeError);
          },
        );

        await t.step("read answers the whole object, null when missing", async () => {
          const data = pattern(3000, 11);
          await ds.put("read.bin", streamOf(data));
          assert.deepEqual(await ds.read("read.bin"), data);
          assert.deepEqual(await ds.read("empty.bin"), new Uint8Array(0));
          assert.equal(await ds.read("never-stored.bin"), null);
          assert.equal(await ds.read("no/such/dir/file.bin"), null);
        });

        await t.step("size is the stored byte count, null when missing", async () => {
          await ds.put("sized.bin", streamOf(pattern(12345, 4)));
          assert.equal(await ds.size("sized.bin"), 12345);
          assert.equal(await ds.size("never-stored.bin"), null);
        });

        await t.step("get of a missing object is null, with or without a range", async () => {
          assert.equal(await ds.get("never-stored.bin"), null);
          assert.equal(await ds.get("never-stored.bin", { start: 0, end: 10 }), null);
          assert.equal(await ds.get("no/such/dir/file.bin"), null);
        });

        await t.step("put replaces an existing object", async () => {
          await ds.put("replaced.bin", streamOf(pattern(5000, 5)));
          const second = pattern(10, 6);
          assert.equal(await ds.put("replaced.bin", streamOf(second)), 10);
          assert.deepEqual(await readAll(await ds.get("replaced.bin")), second);
          assert.equal(await ds.size("replaced.bin"), 10);
        });

        await t.step("delete removes the object; deleting a missing one is fine", async () => {
          await ds.put("doomed.bin", streamOf(pattern(10, 7)));
          await ds.delete("doomed.bin");
          assert.equal(await ds.size("doomed.bin"), null);
          assert.equal(await ds.get("doomed.bin"), null);
          await ds.delete("doomed.bin");
          await ds.delete("never/stored.bin");
        });

        await t.step("rename moves the object, replacing the target", async () => {
          const data = pattern(2048, 8);
          await ds.put("before.bin", streamOf(data));
          await ds.put("after/ä b.bin", streamOf(pattern(5, 9)));
          await ds.rename("before.bin", "after/ä b.bin");
          assert.equal(await ds.size("before.bin"), null);
          assert.deepEqual(await readAll(await ds.get("after/ä b.bin")), data);

          await ds.rename("after/ä b.bin", "after/ä b.bin");
          assert.deepEqual(await readAll(await ds.get("after/ä b.bin")), data);
        });

        await t.step("rename of a missing object is NotFoundError", async () => {
          await assert.rejects(ds.rename("never-stored.bin", "other.bin"), NotFoundError);
          await assert.rejects(ds.rename("never-stored.bin", "never-stored.bin"), NotFoundError);
          assert.equal(await ds.size("other.bin"), null);
        });

        await t.step("a body of exactly the limit is stored", async () => {
          const data = pattern(4096, 10);
          assert.equal(await ds.put("limit.bin", streamOf(data, 1000), { limit: 4096 }), 4096);
          assert.deepEqual(await readAll(await ds.get("limit.bin")), data);
        });

        await t.step("one byte past the limit is SizeLimitError and stores nothing", async () => {
          const before = await subject.stored();
          await assert.rejects(
            ds.put("over.bin", streamOf(pattern(4097, 11), 1000), { limit: 4096 }),
            SizeLimitError,
          );
          assert.equal(await ds.size("over.bin"), null);
          assert.deepEqual(await subject.stored(), before);
        });

        await t.step("past the limit after several parts' worth also stores nothing", async () => {
          const before = await subject.stored();
          await assert.rejects(
            ds.put("over-big.bin", lazyChunks(20, MIB), { limit: 17 * MIB }),
            SizeLimitError,
          );
          assert.equal(await ds.size("over-big.bin"), null);
          assert.deepEqual(await subject.stored(), before);
        });

        await t.step(
          "a put refused at the limit leaves the existing object as it was",
          async () => {
            const data = pattern(100, 12);
            await ds.put("kept.bin", streamOf(data));
            await assert.rejects(
              ds.put("kept.bin", streamOf(pattern(200, 13)), { limit: 150 }),
              SizeLimitError,
            );
            assert.deepEqual(await readAll(await ds.get("kept.bin")), data);
          },
        );

        await t.step("nested names are stored under their raw key", async () => {
          const data = pattern(300, 14);
          assert.equal(await ds.put("a/b/c.txt", streamOf(data)), 300);
          assert.deepEqual(await readAll(await ds.get("a/b/c.txt")), data);
          assert.equal(await ds.size("a/b/c.txt"), 300);
          assert.ok((await subject.stored()).includes(subject.rawKey("a/b/c.txt")));
          // A folder holding objects is not itself an object.
          assert.equal(await ds.size("a/b"), null);
          assert.equal(await ds.get("a/b"), null);
          await ds.delete("a/b");
          assert.equal(await ds.size("a/b/c.txt"), 300);
        });

        await t.step("list names the top-level objects that start with the prefix", async () => {
          const names = [".thumbnail.a.jpg", ".thumbnail.b.png", "x.thumbnail.c.jpg"];
          for (const name of [...names, "dir/.thumbnail.d.jpg", ".thumbnail/e.jpg"]) {
            await ds.put(name, streamOf(pattern(10, 19)));
          }
          const handle = await ds.beginParts(".thumbnail.f.jpg", { partSize: 10 });
          await ds.putPart(".thumbnail.f.jpg", handle, 1, streamOf(pattern(10, 20)), 10);
          const listed = async (prefix: string) => (await Array.fromAsync(ds.list(prefix))).sort();
          assert.deepEqual(await listed(".thumbnail."), names.slice(0, 2));
          assert.deepEqual(await listed(".thumbnail.b"), [".thumbnail.b.png"]);
          assert.deepEqual(await listed(".nothing"), []);
          assert.ok((await listed("")).includes("x.thumbnail.c.jpg"));
          await assert.rejects(() => listed("dir/"), UnsafeNameError);
          // A page at a time, in code-point order, going on after the last name.
          assert.deepEqual(await ds.listAfter(".thumbnail.", undefined, 1), [names[0]]);
          assert.deepEqual(await ds.listAfter(".thumbnail.", names[0], 1), [names[1]]);
          assert.deepEqual(await ds.listAfter(".thumbnail.", names[1], 1), []);
          assert.deepEqual(await ds.listAfter(".thumbnail.", undefined, 5), names.slice(0, 2));
          await assert.rejects(() => ds.listAfter("dir/", undefined, 1), UnsafeNameError);
          await ds.abortParts(".thumbnail.f.jpg", handle);
          for (const name of [...names, "dir/.thumbnail.d.jpg", ".thumbnail/e.jpg"]) {
            await ds.delete(name);
          }
        });

        await t.step("unsafe names are UnsafeNameError on every method", async () => {
          const before = await subject.stored();
          const unsafe = ["../x", "/abs", "a//b", "a\\b", "..", ".", "a/../../b", "a/", "", "a\0b"];
          for (const name of unsafe) {
            const calls: [string, () => Promise<unknown>][] = [
              ["put", () => ds.put(name, streamOf(pattern(10, 15)))],
              ["get", () => ds.get(name)],
              ["get range", () => ds.get(name, { start: 0, end: 1 })],
              ["size", () => ds.size(name)],
              ["read", () => ds.read(name)],
              ["delete", () => ds.delete(name)],
              ["rename from", () => ds.rename(name, "hello.txt")],
              ["rename to", () => ds.rename("hello.txt", name)],
            ];
            for (const [method, call] of calls) {
              await assert.rejects(call, UnsafeNameError, `${method} ${JSON.stringify(name)}`);
            }
          }
          assert.deepEqual(await subject.stored(), before);
        });

        for (const partSize of [1000, 5 * MIB]) {
          await t.step(
            `parts of ${partSize} bytes join in number order, whatever order they came in`,
            async () => {
              const before = await subject.stored();
              const data = pattern(2 * partSize + 123, 16);
              const handle = await ds.beginParts("joined.bin", { partSize });
              const part = (n: number) =>
                data.subarray((n - 1) * partSize, Math.min(n * partSize, data.byteLength));
              const put = (n: number, bytes = part(n), size = part(n).byteLength) =>
                ds.putPart("joined.bin", handle, n, streamOf(bytes, 700), size);
              // A refused part is put again (s3rver keeps what a refused UploadPart sent).
              await assert.rejects(put(2, part(2).subarray(1), partSize), PartSizeError);
              await assert.rejects(put(2, pattern(partSize + 1, 1), partSize), PartSizeError);
              const [third, second] = await Promise.all([put(3), put(2)]);
              await put(1, pattern(partSize, 17)); // replaced below
              const first = await put(1);
              assert.equal(await ds.size("joined.bin"), null);
              const parts = [{ number: 3, tag: third }, { number: 1, tag: first }, {
                number: 2,
                tag: second,
              }];
              assert.equal(await ds.completeParts("joined.bin", handle, parts), data.byteLength);
              assert.deepEqual(await readAll(await ds.get("joined.bin")), data);
              await ds.delete("joined.bin");
              assert.deepEqual(await subject.stored(), before);
            },
          );

          await t.step(`abortParts of ${partSize}-byte parts leaves nothing`, async () => {
            const before = await subject.stored();
            const handle = await ds.beginParts("aborted.bin", { partSize });
            await ds.putPart("aborted.bin", handle, 1, streamOf(pattern(partSize, 18)), partSize);
            await ds.abortParts("aborted.bin", handle);
            assert.equal(await ds.size("aborted.bin"), null);
            assert.deepEqual(await subject.stored(), before);
          });
        }

        await t.step("putPart stores a byte stream (a request's body) exactly", async () => {
          const partSize = 5 * MIB;
          const data = pattern(2 * partSize + 4321, 22);
          const handle = await ds.beginParts("bytes.bin", { partSize });
          const part = (n: number) =>
            data.subarray((n - 1) * partSize, Math.min(n * partSize, data.byteLength));
          await assert.rejects(
            ds.putPart("bytes.bin", handle, 1, byteStreamOf(part(1).subarray(1)), partSize),
            PartSizeError,
          );
          const made = ds instanceof S3Datasource ? ds.partBuffers.created : 0;
          const parts = [];
          for (const number of [1, 2, 3]) {
            const body = byteStreamOf(part(number));
            const tag = await ds.putPart(
              "bytes.bin",
              handle,
              number,
              body,
              part(number).byteLength,
            );
            parts.push({ number, tag });
          }
          assert.equal(await ds.completeParts("bytes.bin", handle, parts), data.byteLength);
          assert.deepEqual(await readAll(await ds.get("bytes.bin")), data);
          if (ds instanceof S3Datasource) {
            // The three parts went through at most two new pooled buffers, all given back.
            assert.ok(ds.partBuffers.created - made <= 2, JSON.stringify(ds.partBuffers));
            assert.equal(ds.partBuffers.lent, 0);
          }
          await ds.delete("bytes.bin");
        });

        await t.step("put streams a body it is handed chunk by chunk", async () => {
          let pulled = 0;
          const body = lazyChunks(20, MIB, () => pulled++);
          assert.equal(await ds.put("lazy.bin", body), 20 * MIB);
          assert.equal(pulled, 20);
          assert.equal(await ds.size("lazy.bin"), 20 * MIB);
          await assertSameStream(await ds.get("lazy.bin"), lazyChunks(20, MIB));
        });

        await t.step("inPlace: bytes written at their offsets become the object", async () => {
          const inPlace = ds.inPlace;
          if (!inPlace) {
            assert.equal(ds.kind, "s3", "only a bucket, assembled from parts, has none");
            return;
          }
          const before = await subject.stored();
          const data = pattern(3000, 21);
          const handle = await ds.beginParts("inplace.bin", { partSize: 1000 });
          let writer = await inPlace.open("inplace.bin", handle, 0);
          await writer.write(data.subarray(0, 1200));
          await writer.write(data.subarray(1200, 1500));
          await writer.sync();
          writer.close();
          // Bytes whose progress was never saved: the next open from an earlier offset drops them.
          writer = await inPlace.open("inplace.bin", handle, 1500);
          await writer.write(pattern(1700, 22));
          writer.close();
          writer = await inPlace.open("inplace.bin", handle, 1500);
          await writer.write(data.subarray(1500));
          await writer.sync();
          writer.close();
          await assert.rejects(() => inPlace.open("inplace.bin", handle, 3001));
          assert.equal(await ds.size("inplace.bin"), null);
          await inPlace.finish("inplace.bin", handle, 3000);
          // A completion tried again finds the object there.
          await inPlace.finish("inplace.bin", handle, 3000);
          assert.deepEqual(await readAll(await ds.get("inplace.bin")), data);
          await ds.abortParts("inplace.bin", handle);
          await ds.delete("inplace.bin");
          assert.deepEqual(await subject.stored(), before);

          // One that is not finished (too short to be) goes whole with abortParts.
          const dropped = await ds.beginParts("dropped.bin", { partSize: 1000 });
          writer = await inPlace.open("dropped.bin", dropped, 0);
          await writer.write(data);
          writer.close();
          await assert.rejects(() => inPlace.finish("dropped.bin", dropped, 3001));
          await ds.abortParts("dropped.bin", dropped);
          assert.equal(await ds.size("dropped.bin"), null);
          assert.deepEqual(await subject.stored(), before);
        });

        await t.step("staging: staged bytes are no object until published", async (t) => {
          const staging = ds.staging;
          if (!staging) {
            assert.equal(ds.kind, "s3", "only a bucket, where publishing is a copy, has none");
            return;
          }
          const data = pattern(3000, 11);
          const before = new Date(Date.now() - 1000);
          const objects = await subject.stored();
          assert.equal(await staging.stage("cstaged1", streamOf(data, 700)), 3000);
          const listed = await Array.fromAsync(staging.list());
          assert.deepEqual(listed.map((o) => o.id), ["cstaged1"]);
          assert.ok(listed[0].writtenAt >= before);
          assert.equal(await ds.size("staged.bin"), null);
          assert.deepEqual((await Array.fromAsync(ds.list(""))).sort(), namesOf(objects));

          await staging.publish("cstaged1", "staged.bin");
          assert.deepEqual(await readAll(await ds.get("staged.bin")), data);
          assert.deepEqual(await Array.fromAsync(staging.list()), []);
          await assert.rejects(staging.publish("cstaged1", "again.bin"), NotFoundError);

          await t.step("past the limit, or unsafe, nothing is staged", async () => {
            await assert.rejects(
              staging.stage("cstaged2", streamOf(data, 1000), { limit: 2999 }),
              SizeLimitError,
            );
            for (const id of ["../x", "a/b", "", ".tmp"]) {
              await assert.rejects(staging.stage(id, streamOf(data)), UnsafeNameError);
            }
            assert.deepEqual(await Array.fromAsync(staging.list()), []);
            await staging.stage("cstaged3", streamOf(data));
            await assert.rejects(staging.publish("cstaged3", "../escape.bin"), UnsafeNameError);
            await assert.rejects(staging.publish("cstaged3", ".tmp/x"), UnsafeNameError);
          });

          await t.step("staging an id again is refused and keeps the first bytes", async () => {
            await staging.stage("cstaged6", streamOf(pattern(7, 14)));
            await assert.rejects(staging.stage("cstaged6", streamOf(pattern(9, 15))));
            await staging.publish("cstaged6", "first.bin");
            assert.deepEqual(await readAll(await ds.get("first.bin")), pattern(7, 14));
          });

          await t.step("discard removes staged bytes; a missing one is fine", async () => {
            await staging.discard("cstaged3");
            await staging.discard("cstaged3");
            assert.deepEqual(await Array.fromAsync(staging.list()), []);
            assert.deepEqual(
              await subject.stored(),
              [...objects, "first.bin", "staged.bin"].sort(),
            );
          });

          await t.step("publish replaces an object of the name, in a folder too", async () => {
            await staging.stage("cstaged4", streamOf(pattern(10, 12)));
            await staging.publish("cstaged4", "staged.bin");
            assert.deepEqual(await readAll(await ds.get("staged.bin")), pattern(10, 12));
            await staging.stage("cstaged5", streamOf(pattern(5, 13)));
            await staging.publish("cstaged5", "deep/er/staged.bin");
            assert.deepEqual(await readAll(await ds.get("deep/er/staged.bin")), pattern(5, 13));
          });
        });

        await t.step("usage: a disk's use and room, or the sum of a bucket's sizes", async () => {
          const before = await ds.usage();
          await ds.put("usage.bin", streamOf(pattern(1234, 9)));
          const after = await ds.usage();
          if (ds.kind === "s3") {
            assert.equal(after.used - before.used, 1234);
            assert.deepEqual([after.total, after.available], [null, null]);
            const subdirectory = subject.rawKey("").replace(/\/$/, "");
            assert.match(after.path, /^ferry-test-[^/]+/);
            assert.ok(
              after.path.endsWith(subdirectory ? `/${subdirectory}` : after.path.slice(-1)),
            );
          } else {
            assert.ok(after.total! > 0 && after.available! >= 0 && after.used > 0);
            assert.ok(after.used + after.available! <= after.total!);
          }
        });
      } finally {
        await subject.dispose();
      }
    },
  });
}

contract("local", false, async () => {
  const root = await Deno.makeTempDir({ prefix: "ferry-datasource-" });
  const datasource = new LocalDatasource(root);
  return {
    datasource,
    stored: () => listFiles(root),
    rawKey: (name) => name,
    dispose: async () => {
      await datasource.close();
      await Deno.remove(root, { recursive: true });
    },
  };
});

contract("s3", skipWithout("s3"), () => openS3(""));
contract("s3 with a subdirectory", skipWithout("s3"), () => openS3("ferry/uploads"));

/** The top-level object names among `keys` (a disk's paths under its root). */
function namesOf(keys: string[]): string[] {
  return keys.filter((key) => !key.includes("/")).sort();
}

/** A fresh bucket on the test S3 service and a datasource over it. */
async function openS3(subdirectory: string): Promise<Subject> {
  const bucket = await openTestBucket(subdirectory);
  return { ...bucket, rawKey: (name) => subdirectory ? `${subdirectory}/${name}` : name };
}

/** Every file under `root`, as sorted `/`-separated relative paths (the staging area included). */
async function listFiles(root: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${root}/${prefix}`)) {
    const path = prefix + entry.name;
    if (entry.isDirectory) files.push(...await listFiles(root, `${path}/`));
    else files.push(path);
  }
  return files.sort();
}

/** `length` deterministic, seed-dependent bytes. */
function pattern(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed * 2654435761;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

/** A stream handing out `data` in chunks of `chunkSize`, one per pull. */
function streamOf(data: Uint8Array, chunkSize = data.byteLength || 1): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= data.byteLength) return controller.close();
      controller.enqueue(data.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  }, { highWaterMark: 0 });
}

/** A byte stream (as a request's body is) of `data`, read at most 64 KiB at a time. */
function byteStreamOf(data: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: 64 * 1024,
    pull(controller) {
      const request = controller.byobRequest!;
      const view = request.view as Uint8Array;
      const n = Math.min(view.byteLength, 64 * 1024, data.byteLength - offset);
      if (n === 0) {
        controller.close();
        return request.respond(0);
      }
      view.set(data.subarray(offset, offset + n));
      offset += n;
      request.respond(n);
    },
  });
}

/**
 * A stream of `count` chunks of `size` bytes, each made only when pulled (chunk
 * `i` is filled from seed `i`), so the whole body never exists at once.
 */
function lazyChunks(count: number, size: number, onPull = () => {}): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index === count) return controller.close();
      onPull();
      controller.enqueue(pattern(size, 100 + index++));
    },
  }, { highWaterMark: 0 });
}

/** All bytes of `stream`, which must not be null. */
async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  assert.ok(stream, "expected an object, got null");
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Asserts that two streams carry the same bytes, comparing as they flow instead of buffering them. */
async function assertSameStream(
  actual: ReadableStream<Uint8Array> | null,
  expected: ReadableStream<Uint8Array>,
): Promise<void> {
  assert.ok(actual, "expected an object, got null");
  const left = actual.getReader();
  const right = expected.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  let position = 0;
  while (true) {
    const { done, value } = await left.read();
    if (done) break;
    let offset = 0;
    while (offset < value.byteLength) {
      if (pending.byteLength === 0) {
        const next = await right.read();
        assert.ok(!next.done, `actual is longer than expected at byte ${position}`);
        pending = next.value;
      }
      const n = Math.min(pending.byteLength, value.byteLength - offset);
      for (let i = 0; i < n; i++) {
        if (value[offset + i] !== pending[i]) assert.fail(`bytes differ at ${position + i}`);
      }
      pending = pending.subarray(n);
      offset += n;
      position += n;
    }
  }
  assert.equal(pending.byteLength, 0, `actual is shorter than expected at byte ${position}`);
  assert.ok((await right.read()).done, `actual is shorter than expected at byte ${position}`);
}
