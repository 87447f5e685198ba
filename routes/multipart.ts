/**
 * A streaming `multipart/form-data` reader over web streams. Hono's
 * `parseBody` (and most parsers for web streams) hold whole parts in memory;
 * this one hands out each file part's body as a stream that reads the request
 * only as fast as its consumer does, so an upload of any size passes through
 * in bounded memory. Non-file fields are skipped, as Zipline skips them.
 */
import { ApiError } from "../core/errors.ts";
import type { UploadPart } from "../core/files/upload.ts";

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

/** Pending bytes of the body and the reader they come from. */
class Scanner {
  buf: Uint8Array = CRLF; // a leading CRLF lets the first delimiter match like the others
  #ended = false;
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next chunk of the body, not yet pending; `null` at its end. */
  async read(): Promise<Uint8Array | null> {
    if (this.#ended) return null;
    const { value, done } = await this.reader.read();
    if (done) this.#ended = true;
    return done ? null : value;
  }

  /** Adds `chunk` after the pending bytes. */
  append(chunk: Uint8Array): void {
    if (this.buf.byteLength === 0) this.buf = chunk;
    else {
      const joined = new Uint8Array(this.buf.byteLength + chunk.byteLength);
      joined.set(this.buf);
      joined.set(chunk, this.buf.byteLength);
      this.buf = joined;
    }
  }

  /** Appends the next chunk; `false` at the end of the body. */
  async fill(): Promise<boolean> {
    const chunk = await this.read();
    if (chunk) this.append(chunk);
    return chunk !== null;
  }

  /** Where `needle` starts in the pending bytes, or -1. */
  indexOf(needle: Uint8Array): number {
    return indexOf(this.buf, needle);
  }

  /** Drops the first `n` pending bytes. */
  skip(n: number): void {
    this.buf = this.buf.subarray(n);
  }

  /** Fills until `n` bytes are pending; throws at the end of the body. */
  async need(n: number): Promise<void> {
    while (this.buf.byteLength < n) {
      if (!await this.fill()) throw malformed("unexpected end of body");
    }
  }

  release(): void {
    this.reader.releaseLock();
  }
}

/** One part's body: the bytes up to the next delimiter. */
class PartBody {
  done = false;
  readonly stream: ReadableStream<Uint8Array>;
  /** The read in progress: a cancelled stream's last pull may still run when `drain` starts. */
  #reading: Promise<unknown> = Promise.resolve();

  constructor(private readonly scanner: Scanner, private readonly delimiter: Uint8Array) {
    let cancelled = false;
    this.stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const chunk = await this.next();
        if (cancelled) return;
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
      // The consumer gave up (a size limit, a failed put): the rest is skipped by `drain`.
      cancel: () => {
        cancelled = true;
      },
    }, { highWaterMark: 0 });
  }

  /** The next bytes of the body, `null` once the delimiter is reached; one read at a time. */
  next(): Promise<Uint8Array | null> {
    const read = this.#reading.then(() => this.#next());
    this.#reading = read.catch(() => {});
    return read;
  }

  async #next(): Promise<Uint8Array | null> {
    const scanner = this.scanner;
    const d = this.delimiter;
    while (!this.done) {
      const at = scanner.indexOf(d);
      if (at >= 0) {
        const chunk = scanner.buf.subarray(0, at);
        scanner.skip(at + d.byteLength);
        this.done = true;
        return chunk.byteLength > 0 ? chunk : null;
      }
      // No delimiter in what is pending: look at the next chunk before letting it all go,
      // since a delimiter may straddle the two. Only that seam is copied, not the chunks.
      const next = await scanner.read();
      if (next === null) throw malformed("unexpected end of body");
      const pending = scanner.buf;
      const seam = new Uint8Array(
        Math.min(pending.byteLength, d.byteLength - 1) +
          Math.min(next.byteLength, d.byteLength - 1),
      );
      const tail = pending.subarray(
        pending.byteLength - Math.min(pending.byteLength, d.byteLength - 1),
      );
      seam.set(tail);
      seam.set(next.subarray(0, seam.byteLength - tail.byteLength), tail.byteLength);
      if (indexOf(seam, d) >= 0 || next.byteLength < d.byteLength) {
        scanner.append(next);
        continue;
      }
      scanner.buf = next;
      if (pending.byteLength > 0) return pending;
    }
    return null;
  }

  /** Reads and drops what the consumer left unread. */
  async drain(): Promise<void> {
    while (await this.next() !== null) {
      // dropped
    }
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
 */
export async function* fileParts(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  maxParts: number,
): AsyncGenerator<UploadPart> {
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  const scanner = new Scanner(body.getReader());
  try {
    // The preamble is a part body nobody reads.
    await new PartBody(scanner, delimiter).drain();
    for (let count = 0;; count++) {
      await scanner.need(2);
      if (scanner.buf[0] === 45 && scanner.buf[1] === 45) return; // "--": the last delimiter
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
