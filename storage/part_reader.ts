/**
 * A body read a part at a time into buffers the caller hands it (S3's `put`:
 * pooled part buffers), never gathered from chunks and copied again: a byte
 * stream (a request's body) is read straight into the buffer, another
 * stream's chunks are copied in as they come. Counts the bytes against a
 * limit, as {@link ByteCounter} does for the other writes.
 */
import { byobReader, SizeLimitError } from "./datasource.ts";

/** One part read: its bytes (a view over the buffer given), and whether the body ended with them. */
export interface ReadPart {
  bytes: Uint8Array<ArrayBuffer>;
  ended: boolean;
}

/** Reads `body` into the buffers it is given, one part after the other. */
export class PartReader {
  readonly #byob: ReadableStreamBYOBReader | null;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | null;
  /** The rest of a chunk that did not fit in the last part. */
  #left: Uint8Array | null = null;
  #bytes = 0;

  constructor(body: ReadableStream<Uint8Array>, readonly limit = Infinity) {
    this.#byob = byobReader(body);
    this.#reader = this.#byob ? null : body.getReader();
  }

  /** Bytes read so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Fills `buffer` from the body, after its first `from` bytes (kept), up to
   * `size` bytes in all, and answers the
   * bytes read, over the buffer's memory (a byte stream's read takes the
   * buffer over: use `bytes.buffer` from then on). Rejects with
   * {@link SizeLimitError} once the body passes the limit.
   */
  async read(buffer: ArrayBuffer, from = 0, size = buffer.byteLength): Promise<ReadPart> {
    let filled = from;
    while (filled < size) {
      if (this.#byob) {
        const read = await this.#byob.read(new Uint8Array(buffer, filled, size - filled));
        if (!read.value) throw new Error("the body errored"); // a read that failed rejects first
        buffer = read.value.buffer as ArrayBuffer;
        if (read.done) return { bytes: new Uint8Array(buffer, 0, filled), ended: true };
        filled += this.#count(read.value.byteLength);
        continue;
      }
      const chunk = this.#left ?? await this.#next();
      this.#left = null;
      if (!chunk) return { bytes: new Uint8Array(buffer, 0, filled), ended: true };
      const n = Math.min(chunk.byteLength, size - filled);
      new Uint8Array(buffer, filled, n).set(chunk.subarray(0, n));
      if (n < chunk.byteLength) this.#left = chunk.subarray(n);
      filled += this.#count(n);
    }
    return { bytes: new Uint8Array(buffer, 0, filled), ended: false };
  }

  /** Stops reading, cancelling the body. */
  async cancel(reason: unknown): Promise<void> {
    await (this.#byob ?? this.#reader)!.cancel(reason).catch(() => {});
  }

  async #next(): Promise<Uint8Array | null> {
    const { done, value } = await this.#reader!.read();
    return done ? null : value;
  }

  #count(n: number): number {
    this.#bytes += n;
    if (this.#bytes > this.limit) throw new SizeLimitError(this.limit);
    return n;
  }
}
