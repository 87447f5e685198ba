/**
 * A streaming zip writer (PKWARE APPNOTE 6.3), for folder and user exports.
 * Entries are stored, not deflated: uploads are mostly compressed already,
 * and storing keeps the writer small and the server's CPU free. Each file's
 * bytes are read from its stream as the archive is read, so the archive is
 * never held in memory: the CRC-32 and the size follow the bytes in a data
 * descriptor, and only the central directory (a few dozen bytes an entry) is
 * kept until the end. Names are UTF-8 (flag bit 11). ZIP64 records are
 * written where a size, an offset or the entry count passes the classic
 * format's limits.
 */
import { crc32 } from "node:zlib";

/** A directory in the archive; `path` without the trailing `/`. */
export interface ZipDirectory {
  kind: "directory";
  path: string;
  modified: Date;
}

/** A file in the archive. */
export interface ZipFile {
  kind: "file";
  path: string;
  modified: Date;
  /** The size the file is expected to have; it decides the ZIP64 form of the local header. */
  size: number;
  /** Opens the bytes, when the entry's turn comes; `null` leaves the entry out. */
  open(): Promise<ReadableStream<Uint8Array> | null>;
}

/** An entry of an archive. */
export type ZipEntry = ZipDirectory | ZipFile;

/** Options of {@link zipStream}. */
export interface ZipOptions {
  /** Writes every ZIP64 record even when nothing needs them (tests of the ZIP64 form). */
  forceZip64?: boolean;
}

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const FLAG_DESCRIPTOR = 1 << 3;
const FLAG_UTF8 = 1 << 11;
/** "Version made by": Unix (3), APPNOTE 4.5 (ZIP64). */
const MADE_BY = (3 << 8) | 45;
const FILE_MODE = (0o100644 << 16) >>> 0;
/** Unix mode in the high half, MS-DOS directory bit in the low one. */
const DIRECTORY_MODE = ((0o40755 << 16) | 0x10) >>> 0;

/** One entry as the central directory records it. */
interface Written {
  name: Uint8Array;
  flags: number;
  time: number;
  date: number;
  crc: number;
  size: number;
  offset: number;
  mode: number;
  zip64: boolean;
}

/**
 * The archive of `entries`, produced as it is read: an entry's bytes are
 * opened only when the reader has taken everything before them. Cancelling
 * the stream cancels the file being read.
 */
export function zipStream(
  entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>,
  options: ZipOptions = {},
): ReadableStream<Uint8Array> {
  return ReadableStream.from(archive(entries, options.forceZip64 ?? false));
}

async function* archive(
  entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>,
  force: boolean,
): AsyncGenerator<Uint8Array> {
  const central: Written[] = [];
  let offset = 0;
  for await (const entry of entries) {
    const [time, date] = dosDateTime(entry.modified);
    const isFile = entry.kind === "file";
    const body = isFile ? await entry.open() : null;
    if (isFile && !body) continue;
    const zip64 = force || (isFile && entry.size >= MAX32) || offset >= MAX32;
    const w: Written = {
      name: new TextEncoder().encode(isFile ? entry.path : `${entry.path}/`),
      flags: FLAG_UTF8 | (isFile ? FLAG_DESCRIPTOR : 0),
      time,
      date,
      crc: 0,
      size: 0,
      offset,
      mode: isFile ? FILE_MODE : DIRECTORY_MODE,
      zip64,
    };
    const header = localHeader(w);
    yield header;
    offset += header.length;
    if (body) {
      for await (const chunk of body) {
        w.crc = crc32(chunk, w.crc);
        w.size += chunk.byteLength;
        yield chunk;
      }
      if (!zip64 && w.size >= MAX32) {
        throw new Error(`${entry.path} grew past 4 GiB without a ZIP64 header`);
      }
      const descriptor = dataDescriptor(w);
      yield descriptor;
      offset += w.size + descriptor.length;
    }
    central.push(w);
  }
  const start = offset;
  for (const w of central) {
    const record = centralHeader(w);
    yield record;
    offset += record.length;
  }
  const size = offset - start;
  if (force || central.length >= MAX16 || start >= MAX32 || size >= MAX32) {
    yield zip64End(central.length, size, start, offset);
  }
  yield end(central.length, size, start);
}

/** Little-endian field writer over a fresh buffer. */
class Fields {
  readonly bytes: Uint8Array;
  #view: DataView;
  #at = 0;

  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.#view = new DataView(this.bytes.buffer);
  }

  u16(value: number): this {
    this.#view.setUint16(this.#at, value, true);
    this.#at += 2;
    return this;
  }

  u32(value: number): this {
    this.#view.setUint32(this.#at, value >>> 0, true);
    this.#at += 4;
    return this;
  }

  u64(value: number): this {
    this.#view.setBigUint64(this.#at, BigInt(value), true);
    this.#at += 8;
    return this;
  }

  raw(data: Uint8Array): this {
    this.bytes.set(data, this.#at);
    this.#at += data.length;
    return this;
  }
}

/** The ZIP64 extra field (id 1) with `values`, each 8 bytes. */
function zip64Extra(values: number[]): Uint8Array {
  const f = new Fields(4 + 8 * values.length).u16(1).u16(8 * values.length);
  for (const v of values) f.u64(v);
  return f.bytes;
}

/** The local header; a file's CRC and sizes follow its bytes, in the data descriptor. */
function localHeader(w: Written): Uint8Array {
  // With ZIP64, the sizes say "see the extra field", and the extra field says "see the descriptor".
  const extra = w.zip64 ? zip64Extra([0, 0]) : new Uint8Array();
  const sizes = w.zip64 ? MAX32 : 0;
  return new Fields(30 + w.name.length + extra.length)
    .u32(0x04034b50).u16(w.zip64 ? 45 : 20).u16(w.flags).u16(0).u16(w.time).u16(w.date)
    .u32(0).u32(sizes).u32(sizes).u16(w.name.length).u16(extra.length)
    .raw(w.name).raw(extra).bytes;
}

/** The data descriptor: CRC-32 and sizes, 8-byte sizes after a ZIP64 local header. */
function dataDescriptor(w: Written): Uint8Array {
  if (w.zip64) return new Fields(24).u32(0x08074b50).u32(w.crc).u64(w.size).u64(w.size).bytes;
  return new Fields(16).u32(0x08074b50).u32(w.crc).u32(w.size).u32(w.size).bytes;
}

/** The central directory record; fields past 32 bits (or all, for a ZIP64 entry) go to ZIP64. */
function centralHeader(w: Written): Uint8Array {
  const big = w.zip64 || w.size >= MAX32;
  const farOffset = w.zip64 || w.offset >= MAX32;
  const extra = big || farOffset
    ? zip64Extra([...(big ? [w.size, w.size] : []), ...(farOffset ? [w.offset] : [])])
    : new Uint8Array();
  return new Fields(46 + w.name.length + extra.length)
    .u32(0x02014b50).u16(MADE_BY).u16(extra.length ? 45 : 20).u16(w.flags).u16(0)
    .u16(w.time).u16(w.date).u32(w.crc)
    .u32(big ? MAX32 : w.size).u32(big ? MAX32 : w.size)
    .u16(w.name.length).u16(extra.length).u16(0).u16(0).u16(0).u32(w.mode)
    .u32(farOffset ? MAX32 : w.offset)
    .raw(w.name).raw(extra).bytes;
}

/** The ZIP64 end of central directory record and its locator. */
function zip64End(count: number, size: number, start: number, at: number): Uint8Array {
  return new Fields(56 + 20)
    .u32(0x06064b50).u64(44).u16(MADE_BY).u16(45).u32(0).u32(0)
    .u64(count).u64(count).u64(size).u64(start)
    .u32(0x07064b50).u32(0).u64(at).u32(1).bytes;
}

/** The end of central directory record, its fields saturated when ZIP64 holds them. */
function end(count: number, size: number, start: number): Uint8Array {
  const n = Math.min(count, MAX16);
  return new Fields(22)
    .u32(0x06054b50).u16(0).u16(0).u16(n).u16(n)
    .u32(Math.min(size, MAX32)).u32(Math.min(start, MAX32)).u16(0).bytes;
}

/** MS-DOS time and date fields of `at` (UTC; clamped to 1980–2107, the format's range). */
function dosDateTime(at: Date): [number, number] {
  const d = new Date(
    Math.min(Math.max(at.getTime(), Date.UTC(1980, 0, 1)), Date.UTC(2107, 11, 31)),
  );
  const time = (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1);
  const date = ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate();
  return [time, date];
}

/**
 * `name` as one path segment of an archive: no `/` or `\`, no control
 * characters, never empty, `.` or `..`, so no entry can land outside the
 * directory it is extracted into.
 */
export function zipSegment(name: string): string {
  // deno-lint-ignore no-control-regex
  const cleaned = name.replace(/[/\\\x00-\x1f\x7f]/g, "_");
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "_" : cleaned;
}
