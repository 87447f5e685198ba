/**
 * The datasource: where file bytes live. One interface, two implementations
 * (`local.ts`, `s3.ts`), both held to `tests/contract/datasource_test.ts`.
 *
 * Names are relative paths inside the upload root. `safeName` refuses anything
 * that could escape it, and every implementation calls it first.
 */

/**
 * The top-level folders the implementations keep for themselves: `local.ts`
 * stages writes and parts under `.tmp`, `s3.ts` stages small parts under
 * `.ferry-parts`. No object of a caller's may be named so.
 */
export const STORAGE_FOLDERS = { staging: ".tmp", parts: ".ferry-parts" } as const;

/** An inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Throws a `RangeError` unless `range` is well formed: integers with
 * `0 <= start <= end`. Implementations call it before touching storage, so a bad
 * range never turns into a whole-object answer (S3 ignores a malformed `Range`).
 */
export function checkRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`bad byte range ${start}-${end}`);
  }
}

/** Options for {@link Datasource.put}. */
export interface PutOptions {
  /** Abort and remove the partial object once more than this many bytes arrive. */
  limit?: number;
  /** MIME type recorded with the object where the backend keeps one (S3). */
  contentType?: string;
}

/**
 * Bytes stored before their name is known, published under it once the
 * file's record holds the name: a small upload's one store commit (issue
 * #18). A staged object is no object yet (`get`, `list` and `size` do not see
 * it) and is known by the id of the file it will be.
 */
export interface Staging {
  /**
   * Streams `body` durably into the staged object `id`, counting bytes, and
   * resolves with the count. Rejects with {@link SizeLimitError} past
   * `limit`, and with any error, leaving nothing staged.
   */
  stage(id: string, body: ReadableStream<Uint8Array>, options?: PutOptions): Promise<number>;
  /**
   * Makes the staged object `id` the object `name`, replacing one of that
   * name. Rejects with {@link NotFoundError} when nothing is staged as `id`,
   * and with {@link UnsafeNameError} for a name `put` would refuse.
   */
  publish(id: string, name: string): Promise<void>;
  /** Removes the staged object `id`; removing a missing one is not an error. */
  discard(id: string): Promise<void>;
  /** The staged objects, each with when its last byte was written. */
  list(): AsyncIterable<StagedObject>;
}

/**
 * An assembly begun by {@link Datasource.beginParts} whose bytes are written
 * front to back, at their offsets, into the one file that becomes its object
 * (tus uploads on a disk): no part is joined and nothing is copied at the
 * end. {@link Datasource.abortParts} drops it as it drops parts.
 */
export interface InPlaceAssembly {
  /**
   * Opens assembly `handle` of the object `name` for writing from byte
   * `offset`, dropping the bytes stored past it first (those of a write
   * whose progress was never saved). Rejects when fewer than `offset` bytes
   * are stored. An assembly an older Ferry wrote as numbered parts
   * ({@link Datasource.putPart}) is joined into the one file first.
   */
  open(name: string, handle: string, offset: number): Promise<AssemblyWriter>;
  /**
   * Makes the first `size` bytes of the assembly the object `name`, by a
   * rename, and ends the assembly; resolves at once when the object already
   * holds them (an earlier completion moved them). Rejects when fewer are
   * stored.
   */
  finish(name: string, handle: string, size: number): Promise<void>;
}

/** Writes the bytes of an {@link InPlaceAssembly} in order. */
export interface AssemblyWriter {
  /** Writes all of `bytes` after those written before; their memory is free once it resolves. */
  write(bytes: Uint8Array): Promise<void>;
  /** Makes every byte written so far durable. */
  sync(): Promise<void>;
  /** Releases the file (every write having resolved). */
  close(): void;
}

/** A staged object, as {@link Staging.list} answers it. */
export interface StagedObject {
  id: string;
  writtenAt: Date;
}

/** Where file bytes are stored: local disk or an S3-compatible bucket. */
export interface Datasource {
  /** Which implementation this is, for status pages and logs. */
  readonly kind: "local" | "s3";
  /**
   * Staged writes where publishing is cheap (a rename on disk); `null` where
   * it is a copy (S3), so uploads write under the final name instead.
   */
  readonly staging: Staging | null;
  /**
   * Assemblies written in order into the one file that becomes the object,
   * so that completing one is a rename (a disk); `null` where an object is
   * assembled from parts (S3's multipart upload).
   */
  readonly inPlace: InPlaceAssembly | null;
  /**
   * Streams `body` into `name`, counting bytes. Resolves with the byte count.
   * Rejects with {@link SizeLimitError} past `limit`, leaving nothing stored.
   * Replaces an existing object of the same name.
   */
  put(name: string, body: ReadableStream<Uint8Array>, options?: PutOptions): Promise<number>;
  /**
   * Streams the object, or the inclusive `range` of it; `null` when it does not exist.
   * A range ending past the last byte stops at the last byte; a range starting past
   * it, or a malformed one (see {@link checkRange}), rejects with a `RangeError`.
   */
  get(name: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null>;
  /**
   * The whole object in memory, or `null` when it does not exist: for small
   * objects only (serving answers a small file from one read, without a stream).
   */
  read(name: string): Promise<Uint8Array<ArrayBuffer> | null>;
  /** The object's size in bytes, or `null` when it does not exist. */
  size(name: string): Promise<number | null>;
  /**
   * The names of the top-level objects (those not inside a folder) that start
   * with `prefix`, in no set order; rejects with {@link UnsafeNameError} for a
   * prefix holding a `/`.
   */
  list(prefix: string): AsyncIterable<string>;
  /**
   * Up to `limit` of {@link list}'s names that come after `after` (all of
   * them without it), in code-point order: a listing read a bounded page at
   * a time, each going on where the last stopped (a bucket reads only that
   * page; a directory is read through, keeping `limit` names).
   */
  listAfter(prefix: string, after: string | undefined, limit: number): Promise<string[]>;
  /** Removes the object; removing a missing object is not an error. */
  delete(name: string): Promise<void>;
  /** Renames `from` to `to`; rejects with {@link NotFoundError} when `from` is missing. */
  rename(from: string, to: string): Promise<void>;
  /**
   * Starts an object assembled from numbered parts (chunked uploads); returns
   * the handle the other part methods take. `partSize` is the size of every
   * part but the last, which lets S3 choose between a real multipart upload
   * (parts of at least 5 MiB) and staged part objects joined at the end.
   */
  beginParts(name: string, options: PartsOptions): Promise<string>;
  /**
   * Stores part `number` (from 1) of exactly `size` bytes, replacing an earlier
   * copy of it; parts may arrive in any order and at once. Resolves with the
   * tag {@link Datasource.completeParts} needs; rejects with {@link PartSizeError}
   * when the body is not `size` bytes long, storing nothing.
   */
  putPart(
    name: string,
    handle: string,
    number: number,
    body: ReadableStream<Uint8Array>,
    size: number,
  ): Promise<string>;
  /** Joins `parts` in number order into the object `name`; resolves with its size. */
  completeParts(name: string, handle: string, parts: StoredPart[]): Promise<number>;
  /** Drops the parts of an assembly that will not complete; the object never appears. */
  abortParts(name: string, handle: string): Promise<void>;
  /** How much the datasource holds and where (`GET /api/server/status`). */
  usage(): Promise<StorageUsage>;
  /** Releases what the implementation holds open. */
  close(): Promise<void>;
}

/**
 * What a datasource takes up. A disk answers for its whole file system
 * (`total`, `available`); a bucket has no size, so it answers with the sum of
 * its objects' sizes and `null` for the rest.
 */
export interface StorageUsage {
  /** Bytes in use: on the file system the root is on, or in the bucket (its subdirectory). */
  used: number;
  total: number | null;
  available: number | null;
  /** The root directory, or `<bucket>[/<subdirectory>]`. */
  path: string;
}

/** Options for {@link Datasource.beginParts}. */
export interface PartsOptions {
  /** The size of every part but the last. */
  partSize: number;
  /** MIME type recorded with the object where the backend keeps one (S3). */
  contentType?: string;
}

/** A stored part, as {@link Datasource.putPart} answered it. */
export interface StoredPart {
  number: number;
  tag: string;
}

/** Thrown by `putPart` when the body is longer or shorter than the part's size. */
export class PartSizeError extends Error {
  constructor(readonly expected: number) {
    super(`the part was not ${expected} bytes long`);
    this.name = "PartSizeError";
  }
}

/** Thrown by `put` when the stream passes its byte limit. */
export class SizeLimitError extends Error {
  constructor(readonly limit: number) {
    super(`stream passed its limit of ${limit} bytes`);
    this.name = "SizeLimitError";
  }
}

/**
 * Thrown when the storage has no room left (a full disk, an exhausted disk
 * quota); whatever the write had stored is removed first.
 */
export class StorageFullError extends Error {
  constructor(cause: unknown) {
    super("no space left in the datasource", { cause });
    this.name = "StorageFullError";
  }
}

/** Thrown when an object that must exist does not. */
export class NotFoundError extends Error {
  constructor(name: string) {
    super(`no object named ${name}`);
    this.name = "NotFoundError";
  }
}

/** Thrown for a name that is empty, absolute or tries to leave the upload root. */
export class UnsafeNameError extends Error {
  constructor(name: string) {
    super(`unsafe object name ${JSON.stringify(name)}`);
    this.name = "UnsafeNameError";
  }
}

/**
 * Returns `name` when it is a safe relative path (segments separated by `/`,
 * none empty, `.` or `..`, no backslash or NUL); throws {@link UnsafeNameError} otherwise.
 */
export function safeName(name: string): string {
  if (name.length === 0 || name.length > 1024 || /[\\\0]/.test(name) || name.startsWith("/")) {
    throw new UnsafeNameError(name);
  }
  for (const segment of name.split("/")) {
    if (segment === "" || segment === "." || segment === "..") throw new UnsafeNameError(name);
  }
  return name;
}

/**
 * Counts the bytes of a `put` body as they pass through {@link ByteCounter.stream}
 * and errors that stream with {@link SizeLimitError} once they pass `limit`.
 * Every implementation pipes its body through one, so all stop at the same byte.
 */
export class ByteCounter {
  /** Pipe the body through this; chunks pass unchanged until the limit is passed. */
  readonly stream: TransformStream<Uint8Array, Uint8Array>;
  #bytes = 0;

  constructor(readonly limit: number = Infinity) {
    this.stream = new TransformStream({
      transform: (chunk, controller) => {
        this.#bytes += chunk.byteLength;
        if (this.#bytes > limit) throw new SizeLimitError(limit);
        controller.enqueue(chunk);
      },
    });
  }

  /** Bytes that have passed so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether the body passed the limit. */
  get exceeded(): boolean {
    return this.#bytes > this.limit;
  }
}

/** A BYOB reader of `body` when it is a byte stream, else `null`. */
export function byobReader(body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | null {
  try {
    return body.getReader({ mode: "byob" });
  } catch {
    return null; // not a byte stream
  }
}

/**
 * The chunks of `body`, read into one buffer used again for every chunk when
 * it is a byte stream (a request's body): a chunk is valid only until the
 * next is asked for. The buffer starts at `first` bytes and doubles while
 * reads fill it, up to `largest`: small for a small body, few reads for a
 * large one, and no buffer per chunk left to the collector (a 1 GiB body in
 * 64 KiB chunks otherwise grew the process by 60–70 MiB before a collection,
 * bench/results/tus.md). Other streams' chunks pass as they come. Leaving
 * the loop early cancels the body.
 */
export async function* reusedChunks(
  body: ReadableStream<Uint8Array>,
  first = 8 * 1024,
  largest = 1024 * 1024,
): AsyncGenerator<Uint8Array, void, undefined> {
  const byob = byobReader(body);
  if (!byob) return yield* body;
  let buffer = new ArrayBuffer(first);
  let done = false;
  try {
    while (true) {
      const read = await byob.read(new Uint8Array(buffer));
      if (read.done) {
        done = true;
        return;
      }
      const { value } = read;
      yield value;
      buffer = value.buffer as ArrayBuffer; // the read took it over: the same memory
      if (value.byteLength === buffer.byteLength && buffer.byteLength < largest) {
        buffer = new ArrayBuffer(Math.min(buffer.byteLength * 2, largest));
      }
    }
  } finally {
    if (!done) await byob.cancel().catch(() => {});
    byob.releaseLock();
  }
}

/**
 * Passes `body` on unchanged, erroring with {@link PartSizeError} as soon as it
 * is longer than `size` bytes or when it ends shorter.
 */
export function exactly(
  body: ReadableStream<Uint8Array>,
  size: number,
): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > size) throw new PartSizeError(size);
        controller.enqueue(chunk);
      },
      flush() {
        if (seen !== size) throw new PartSizeError(size);
      },
    }),
  );
}

/** One stream of the `count` streams `open` gives, read one after the other, in order. */
export function concatenated(
  count: number,
  open: (index: number) => Promise<ReadableStream<Uint8Array>>,
): ReadableStream<Uint8Array> {
  return ReadableStream.from((async function* () {
    for (let i = 0; i < count; i++) yield* await open(i);
  })());
}
