/**
 * A part's body sent to S3 from buffers used again, so that a large upload
 * leaves no buffer per chunk to the collector. The SDK's HTTP handler pipes a
 * Node stream body into its request (`body.pipe(request)`); {@link PooledBody}
 * answers that pipe by reading its web byte stream (a request's body) with a
 * BYOB reader straight into a buffer from a {@link BufferPool} and writing
 * that buffer to the request, taking it again only once the write's callback
 * said the bytes left it (Node's rule for `write(chunk, callback)`: the
 * chunk is the writer's until then). Two buffers per part in flight: one is
 * filled while the other is written. A 64 KiB buffer per chunk, garbage once
 * sent, otherwise grew the server by 65–73 MiB during a 1 GiB tus upload
 * before V8 collected it (bench/results/tus.md).
 */
import { Readable, type Writable } from "node:stream";
import { byobReader, PartSizeError } from "./datasource.ts";

/** Bytes per pooled buffer: a few socket writes' worth. */
const POOLED_BUFFER_SIZE = 256 * 1024;
/** Idle buffers a pool keeps for the next part (4: two parts' worth, 1 MiB). */
const KEEP_IDLE = 4;

/** Buffers of one size, handed out and taken back, so a body's bytes pass through the same memory. */
export class BufferPool {
  readonly #idle: ArrayBuffer[] = [];
  #created = 0;
  #lent = 0;

  constructor(readonly size = POOLED_BUFFER_SIZE, readonly keep = KEEP_IDLE) {}

  /** How many buffers the pool has made since it was created. */
  get created(): number {
    return this.#created;
  }

  /** How many buffers are lent out now (taken, not yet given back or lost). */
  get lent(): number {
    return this.#lent;
  }

  /** A buffer of {@link size} bytes, an idle one when there is one. */
  take(): ArrayBuffer {
    this.#lent++;
    const idle = this.#idle.pop();
    if (idle) return idle;
    this.#created++;
    return new ArrayBuffer(this.size);
  }

  /**
   * Takes back a buffer from {@link take} (the same memory, possibly a
   * transferred object). One the pool does not keep is detached, which frees
   * its memory at once: dropped, it would wait for V8's collection, which
   * external memory triggers only every 64 MiB or so (the soak's instances
   * held 56–101 MiB of dropped 5 MiB part buffers, bench/results/soak.md).
   */
  give(buffer: ArrayBuffer): void {
    this.#lent--;
    if (buffer.detached) return;
    if (buffer.byteLength === this.size && this.#idle.length < this.keep) {
      this.#idle.push(buffer);
    } else {
      buffer.transfer(0);
    }
  }

  /** Forgets a lent buffer that cannot come back (a write that failed may still hold it). */
  lose(): void {
    this.#lent--;
  }
}

/** One of a body's two buffers: its memory, and the write of it in flight. */
interface Slot {
  /** Whether the slot took a buffer from the pool. */
  took: boolean;
  buffer: ArrayBuffer | null;
  written: Promise<void> | null;
}

/**
 * Exactly `size` bytes of `body` as a Node stream for the SDK's request:
 * errors with {@link PartSizeError} when the body is longer or shorter (and
 * cancels it). Piped, a byte stream is sent through `pool`'s buffers; read
 * any other way, or from a stream that is not a byte stream, its chunks pass
 * as they come.
 */
export class PooledBody extends Readable {
  readonly #body: ReadableStream<Uint8Array>;
  readonly #size: number;
  readonly #pool: BufferPool;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #seen = 0;

  constructor(body: ReadableStream<Uint8Array>, size: number, pool: BufferPool) {
    super({ highWaterMark: 0 });
    this.#body = body;
    this.#size = size;
    this.#pool = pool;
  }

  /** Read as an ordinary Node stream: the body's chunks, counted. */
  override _read(): void {
    this.#reader ??= this.#body.getReader();
    this.#reader.read().then(({ done, value }) => {
      if (done) {
        if (this.#seen !== this.#size) throw new PartSizeError(this.#size);
        this.push(null);
      } else {
        this.#count(value.byteLength);
        this.push(value);
      }
    }).catch((error) => this.#fail(error));
  }

  /** Sends the body into `destination` through the pool's buffers, then ends it. */
  override pipe<T extends NodeJS.WritableStream>(destination: T): T {
    this.#send(destination as unknown as Writable).catch((error) => this.#fail(error));
    return destination;
  }

  async #send(destination: Writable): Promise<void> {
    const byob = byobReader(this.#body);
    if (!byob) return await this.#sendChunks(destination);
    const slots: Slot[] = [0, 1].map(() => ({ took: false, buffer: null, written: null }));
    let failed = true;
    try {
      for (let i = 0;; i ^= 1) {
        const slot = slots[i];
        await slot.written;
        slot.written = null;
        if (!slot.took) {
          slot.took = true;
          slot.buffer = this.#pool.take();
        }
        let buffer = slot.buffer;
        let filled = 0;
        let ended = false;
        // Each read is written at once: waiting to fill the buffer first halved a tus
        // upload's throughput (the request's bytes wait for the client meanwhile).
        while (buffer && filled === 0) {
          const view: Uint8Array<ArrayBuffer> = new Uint8Array(buffer);
          const read = await byob.read(view);
          // The read took the buffer over: the same memory, a new object (none if it errored).
          buffer = slot.buffer = (read.value?.buffer as ArrayBuffer | undefined) ?? null;
          if (read.done) {
            ended = true;
            break;
          }
          this.#count(read.value.byteLength);
          filled += read.value.byteLength;
        }
        if (buffer && filled > 0) {
          slot.written = written(destination, new Uint8Array(buffer, 0, filled));
          slot.written.catch(() => {}); // awaited before the slot is filled again
        }
        if (ended) break;
      }
      if (this.#seen !== this.#size) throw new PartSizeError(this.#size);
      await Promise.all(slots.map((slot) => slot.written));
      failed = false;
      destination.end();
    } catch (error) {
      await byob.cancel(error).catch(() => {});
      throw error;
    } finally {
      byob.releaseLock();
      const give = () => {
        for (const slot of slots.filter((slot) => slot.took)) {
          if (slot.buffer) this.#pool.give(slot.buffer);
          else this.#pool.lose(); // the body errored with it
        }
      };
      // After a failure a write may still be in flight: its buffer is the socket's until it settles.
      if (failed) Promise.allSettled(slots.map((slot) => slot.written)).then(give);
      else give();
    }
  }

  /** A body that is not a byte stream: its own chunks, each written once the last has left. */
  async #sendChunks(destination: Writable): Promise<void> {
    const reader = this.#body.getReader();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#count(value.byteLength);
        await written(destination, value);
      }
      if (this.#seen !== this.#size) throw new PartSizeError(this.#size);
      destination.end();
    } catch (error) {
      await reader.cancel(error).catch(() => {});
      throw error;
    } finally {
      reader.releaseLock();
    }
  }

  #count(bytes: number): void {
    this.#seen += bytes;
    if (this.#seen > this.#size) throw new PartSizeError(this.#size);
  }

  #fail(error: unknown): void {
    this.#reader?.cancel(error).catch(() => {});
    this.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/** Writes `chunk` to `destination`; resolves once the chunk has left it (its callback). */
function written(destination: Writable, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    destination.write(chunk, (error) => error ? reject(error) : resolve());
  });
}
