/**
 * The S3 part body (`storage/pooled_body.ts`): a byte stream's bytes reach
 * the request whole and in order through at most two pooled buffers, each
 * taken again only after its write's callback, and the same buffers serve
 * the next part.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { PartSizeError } from "../../storage/datasource.ts";
import { BufferPool, PooledBody } from "../../storage/pooled_body.ts";

/** `length` bytes of a seed-dependent pattern. */
function pattern(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed * 7 + (i >> 9)) & 0xff);
}

/** A byte stream (as a request's body is) handing out `data` in reads of at most `chunk` bytes. */
function byteStreamOf(data: Uint8Array, chunk: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const request = controller.byobRequest!;
      const view = request.view as Uint8Array;
      const n = Math.min(view.byteLength, chunk, data.byteLength - at);
      if (n === 0) {
        controller.close();
        return request.respond(0);
      }
      view.set(data.subarray(at, at + n));
      at += n;
      request.respond(n);
    },
  });
}

/**
 * A request stand-in: it keeps each written chunk's memory (as a socket does
 * until the write is done) and checks, when it calls back a little later,
 * that nobody changed it meanwhile.
 */
function slowRequest() {
  const chunks: Uint8Array[] = [];
  let ended!: () => void;
  const writes: Promise<void>[] = [];
  const writable = new Writable({
    highWaterMark: 0,
    write(chunk: Uint8Array, _encoding, callback) {
      const copy = new Uint8Array(chunk); // a copy (a Buffer's slice is a view)
      const { promise, resolve } = Promise.withResolvers<void>();
      writes.push(promise);
      setTimeout(() => {
        resolve();
        const now = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        assert.deepEqual(now, copy, "a chunk changed before its write was done");
        chunks.push(copy);
        callback();
      }, 1);
    },
    final(callback) {
      ended();
      callback();
    },
  });
  return {
    writable,
    received: () => {
      const all = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
      let at = 0;
      for (const c of chunks) all.set(c, (at += c.byteLength) - c.byteLength);
      return all;
    },
    ended: new Promise<void>((resolve) => ended = resolve),
    /** Resolves once every write so far has called back, and what waited on them ran. */
    settled: async () => {
      await Promise.all(writes);
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

/**
 * Pipes `body` into a slow request; resolves with what it received, or
 * rejects with the body's error once the writes in flight called back.
 */
async function send(body: PooledBody): Promise<Uint8Array> {
  const request = slowRequest();
  const failed = new Promise<never>((_, reject) => body.on("error", reject));
  body.pipe(request.writable);
  try {
    await Promise.race([request.ended, failed]);
  } finally {
    await request.settled();
  }
  return request.received();
}

Deno.test("pooled body: a byte stream's bytes arrive whole through two buffers used again", async () => {
  const pool = new BufferPool(64 * 1024);
  for (const [size, chunk] of [[3 * 1024 * 1024 + 17, 40_000], [500_000, 70_000], [10, 3]]) {
    const data = pattern(size, size);
    assert.deepEqual(await send(new PooledBody(byteStreamOf(data, chunk), size, pool)), data);
    assert.equal(pool.lent, 0, "every buffer is given back once the part is sent");
  }
  assert.equal(pool.created, 2, "the same two buffers served every part");
});

Deno.test("pooled body: a body longer or shorter than the part fails with PartSizeError", async () => {
  const pool = new BufferPool(64 * 1024);
  const data = pattern(200_000, 1);
  await assert.rejects(
    send(new PooledBody(byteStreamOf(data, 50_000), 150_000, pool)),
    PartSizeError,
  );
  await assert.rejects(
    send(new PooledBody(byteStreamOf(data, 50_000), 250_000, pool)),
    PartSizeError,
  );
  assert.equal(pool.lent, 0, "no buffer stays lent after a failure");
  assert.ok(pool.created <= 4);
});

Deno.test("pooled body: a stream that is not a byte stream passes its chunks, counted", async () => {
  const pool = new BufferPool(64 * 1024);
  const data = pattern(300_000, 2);
  const chunks = () => ReadableStream.from([data.subarray(0, 100_000), data.subarray(100_000)]);
  assert.deepEqual(await send(new PooledBody(chunks(), data.byteLength, pool)), data);
  await assert.rejects(send(new PooledBody(chunks(), data.byteLength - 1, pool)), PartSizeError);
  assert.equal(pool.created, 0, "its own chunks are sent: no buffer is taken");
});

Deno.test("buffer pool: a buffer past the idle ones it keeps is detached, its memory freed at once", () => {
  const pool = new BufferPool(1024, 1);
  const [a, b] = [pool.take(), pool.take()];
  pool.give(a);
  pool.give(b);
  assert.equal(pool.lent, 0);
  assert.equal(a.detached, false, "the first is kept idle");
  assert.equal(
    b.detached,
    true,
    "the one the pool does not keep is freed, not left to the collector",
  );
  assert.equal(pool.take(), a, "the kept one is lent again");
  pool.give(new ArrayBuffer(10)); // another size is never kept
  assert.equal(pool.created, 2);
});
