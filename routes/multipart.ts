/**
 * A streaming `multipart/form-data` reader over web streams. Hono's
 * `parseBody` (and most parsers for web streams) hold whole parts in memory;
 * this one hands out each file part's body as a stream that reads the request
 * only as fast as its consumer does, so an upload of any size passes through
 * in bounded memory. Non-file fields are skipped, as Zipline skips them. A
 * request's own body (a byte stream) is read straight into the reader's
 * buffer, with no chunk allocated per read.
 */
import { ApiError } from "../core/errors.ts";
import type { UploadPart } from "../core/files/batch.ts";
import { byobReader } from "../storage/datasource.ts";
import { truncatedBody } from "./middleware/body_limit.ts";

/** Largest header block of one part. */
const MAX_HEADER_BYTES = 16 * 1024;

const CRLF = new Uint8Array([13, 10]);
const HEADER_END = new TextEncoder().encode("\r\n\r\n");

const malformed = (reason: string) =>
  new ApiError(400, `Invalid multipart/form-data request: ${reason}`);

/** The boundary of a `multipart/form-data` content type, or `null` when it is not one. */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match ? match[1] ?? match[2] : null;
}

/** The length a `Content-Length` header declares, or `undefined` without a valid one. */
export function declaredLength(header: string | undefined): number | undefined {
  return header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}

/** Where `needle` starts in `buf`, or -1: a native scan for its first byte, then a compare. */
function indexOf(buf: Uint8Array, needle: Uint8Array): number {
  const last = buf.byteLength - needle.byteLength;
  for (
    let at = buf.indexOf(needle[0]);
    at !== -1 && at <= last;
    at = buf.indexOf(needle[0], at + 1)
  ) {
    let i = 1;
    while (i < needle.byteLength && buf[at + i] === needle[i]) i++;
    if (i === needle.byteLength) return at;
  }
  return -1;
}

/**
 * The most the buffer a body is read into starts at (less for a body whose
 * length is known to be smaller: a 1 KiB upload then allocates 2 KiB, not
 * 64), and the most it grows to.
 */
const FIRST_BUFFER_BYTES = 64 * 1024;
const LARGEST_BUFFER_BYTES = 1024 * 1024;
/** The least the buffer starts at. */
const SMALLEST_BUFFER_BYTES = 1024;

/**
 * The pending bytes of the body, in one buffer that the body is read into and
 * that is used again and again. A byte stream (a request's body) is read
 * straight into it (BYOB), so that an upload of any size allocates no buffer
 * per chunk; chunks of another stream are copied in. The buffer doubles while
 * reads fill it, up to {@link LARGEST_BUFFER_BYTES}.
 */
class Scanner {
  #buffer: ArrayBuffer;
  #start = 0;
  #end = 0;
  #ended = false;
  readonly #byob: ReadableStreamBYOBReader | null;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | null;
  /** What a copied-in chunk had left over. */
  #leftover: Uint8Array | null = null;

  /** `length`: the body's length when known (its `Content-Length`), to size the buffer by. */
  constructor(body: ReadableStream<Uint8Array>, length?: number) {
    const first = Math.min(FIRST_BUFFER_BYTES, (length ?? Infinity) + CRLF.byteLength);
    this.#buffer = new ArrayBuffer(Math.max(SMALLEST_BUFFER_BYTES, first));
    this.#byob = byobReader(body);
    this.#reader = this.#byob ? null : body.getReader();
    // A leading CRLF lets the first delimiter match like the others.
    new Uint8Array(this.#buffer).set(CRLF);
    this.#end = CRLF.byteLength;
  }

  /** The pending bytes: valid until the next `fill`. */
  get buf(): Uint8Array {
    return new Uint8Array(this.#buffer, this.#start, this.#end - this.#start);
  }

  /** Reads more bytes after the pending ones; `false` at the end of the body. */
  async fill(): Promise<boolean> {
    if (this.#ended) return false;
    this.#makeRoom();
    const read = await this.#readInto(new Uint8Array(this.#buffer, this.#end));
    if (read === null) this.#ended = true;
    else this.#end += read;
    return read !== null;
  }

  /** Moves the pending bytes to the front; doubles the buffer when it was full. */
  #makeRoom(): void {
    const pending = this.buf;
    const length = pending.byteLength;
    const size = this.#buffer.byteLength;
    const full = this.#end === size;
    if (full && (this.#start === 0 || size < LARGEST_BUFFER_BYTES)) {
      const grown = new Uint8Array(size * 2);
      grown.set(pending);
      // The old buffer's views are dead (valid until this fill): free it now, not at V8's next GC.
      this.#buffer.transfer(0);
      this.#buffer = grown.buffer;
    } else if (this.#start > 0) {
      new Uint8Array(this.#buffer).copyWithin(0, this.#start, this.#end);
    }
    this.#start = 0;
    this.#end = length;
  }

  /**
   * Reads into `view` (not empty); resolves with the bytes read, `null` at
   * the end. A read that fails (the client went away, the body ended before
   * its `Content-Length`) is a 400.
   */
  async #readInto(view: Uint8Array): Promise<number | null> {
    try {
      return await this.#read(view);
    } catch (error) {
      throw error instanceof ApiError ? error : truncatedBody();
    }
  }

  async #read(view: Uint8Array): Promise<number | null> {
    if (this.#byob) {
      const { value, done } = await this.#byob.read(view);
      // The read took the buffer over: what it gives back is the same memory.
      if (value) this.#buffer = value.buffer as ArrayBuffer;
      return done ? null : value.byteLength;
    }
    let chunk = this.#leftover;
    while (!chunk?.byteLength) {
      const { value, done } = await this.#reader!.read();
      if (done) return null;
      chunk = value;
    }
    const n = Math.min(chunk.byteLength, view.byteLength);
    view.set(chunk.subarray(0, n));
    this.#leftover = n < chunk.byteLength ? chunk.subarray(n) : null;
    return n;
  }

  /** Where `needle` starts in the pending bytes, or -1. */
  indexOf(needle: Uint8Array): number {
    return indexOf(this.buf, needle);
  }

  /** Drops the first `n` pending bytes. */
  skip(n: number): void {
    this.#start += n;
  }

  /** Fills until `n` bytes are pending; throws at the end of the body. */
  async need(n: number): Promise<void> {
    while (this.#end - this.#start < n) {
      if (!await this.fill()) throw malformed("unexpected end of body");
    }
  }

  release(): void {
    (this.#byob ?? this.#reader)!.releaseLock();
  }

  /** Frees the buffer at once (not at V8's next GC), once every part was read to its end. */
  free(): void {
    if (!this.#buffer.detached) this.#buffer.transfer(0);
  }
}

/**
 * One part's body: the bytes up to the next delimiter, as a byte stream. Its
 * chunks are copies, never the scanner's buffer: into the reader's own buffer
 * for a BYOB reader (which then allocates nothing per chunk), else a new
 * chunk of what is pending.
 */
class PartBody {
  done = false;
  readonly stream: ReadableStream<Uint8Array>;
  /** The read in progress: a cancelled stream's last pull may still run when `drain` starts. */
  #reading: Promise<unknown> = Promise.resolve();
  /** How many pending bytes are known to be the body's (no delimiter starts among them). */
  #clear = 0;

  constructor(private readonly scanner: Scanner, private readonly delimiter: Uint8Array) {
    let cancelled = false;
    this.stream = new ReadableStream({
      type: "bytes",
      pull: async (controller) => {
        const request = controller.byobRequest;
        const into = request?.view &&
          new Uint8Array(request.view.buffer, request.view.byteOffset, request.view.byteLength);
        const bytes = await this.next(into?.byteLength ?? Infinity);
        if (cancelled) return;
        if (bytes === null) controller.close();
        if (into) {
          if (bytes) into.set(bytes);
          request!.respond(bytes?.byteLength ?? 0);
        } else if (bytes) controller.enqueue(bytes.slice());
      },
      // The consumer gave up (a size limit, a failed put): the rest is skipped by `drain`.
      cancel: () => {
        cancelled = true;
      },
    });
  }

  /**
   * The next bytes of the body, at most `max`, `null` once the delimiter is
   * reached; they are the scanner's memory, to copy before the next call. One
   * read at a time.
   */
  next(max: number): Promise<Uint8Array | null> {
    const read = this.#reading.then(() => this.#next(max));
    this.#reading = read.catch(() => {});
    return read;
  }

  async #next(max: number): Promise<Uint8Array | null> {
    const scanner = this.scanner;
    const d = this.delimiter;
    while (!this.done) {
      if (this.#clear === 0) {
        const at = scanner.indexOf(d);
        if (at === 0) {
          scanner.skip(d.byteLength);
          this.done = true;
          break;
        }
        // Up to the delimiter; without one, all but a tail where one may begin.
        this.#clear = at > 0 ? at : Math.max(0, scanner.buf.byteLength - (d.byteLength - 1));
        if (this.#clear === 0) {
          if (!await scanner.fill()) throw malformed("unexpected end of body");
          continue;
        }
      }
      const bytes = scanner.buf.subarray(0, Math.min(this.#clear, max));
      scanner.skip(bytes.byteLength);
      this.#clear -= bytes.byteLength;
      return bytes;
    }
    return null;
  }

  /** Reads and drops what the consumer left unread. */
  async drain(): Promise<void> {
    while (!this.done) await this.next(Infinity);
  }
}

/** The parameters of a `Content-Disposition` header: `name`, `filename` (`filename*` wins). */
function disposition(value: string): { name?: string; filename?: string } {
  const params: Record<string, string> = {};
  for (const m of value.matchAll(/;\s*([\w*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    params[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3].trim();
  }
  const extended = /^utf-8''(.*)$/i.exec(params["filename*"] ?? "")?.[1];
  let filename = params.filename;
  if (extended !== undefined) {
    try {
      filename = decodeURIComponent(extended);
    } catch {
      // keep the plain filename
    }
  }
  return { name: params.name, filename };
}

/**
 * The file parts of a multipart body, in order. Each part's body must be read
 * (or cancelled) before the next part is asked for; whatever is left unread
 * is skipped then. More than `maxParts` parts (fields included) is a 400.
 * `length` is the body's `Content-Length`, when it has one.
 */
export async function* fileParts(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  maxParts: number,
  length?: number,
): AsyncGenerator<UploadPart> {
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  const scanner = new Scanner(body, length);
  try {
    // The preamble is a part body nobody reads.
    await new PartBody(scanner, delimiter).drain();
    for (let count = 0;; count++) {
      await scanner.need(2);
      if (scanner.buf[0] === 45 && scanner.buf[1] === 45) { // "--": the last delimiter
        scanner.free();
        return;
      }
      let end: number;
      while ((end = scanner.indexOf(HEADER_END)) < 0) {
        if (scanner.buf.byteLength > MAX_HEADER_BYTES) throw malformed("part headers too large");
        if (!await scanner.fill()) throw malformed("unexpected end of body");
      }
      if (end > MAX_HEADER_BYTES) throw malformed("part headers too large");
      if (count >= maxParts) throw malformed(`more than ${maxParts} parts`);
      const headers = new TextDecoder().decode(scanner.buf.subarray(0, end)).split("\r\n");
      scanner.skip(end + HEADER_END.byteLength);
      const header = (name: string) =>
        headers.find((h) => h.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1)
          .trim();
      const { filename } = disposition(header("content-disposition") ?? "");
      const part = new PartBody(scanner, delimiter);
      if (filename !== undefined) {
        yield { filename, contentType: header("content-type") ?? "", body: part.stream };
      }
      await part.drain();
    }
  } finally {
    scanner.release();
  }
}
