/**
 * GPS removal from JPEG and PNG images (`filesRemoveGpsMetadata`) while they
 * stream. Exif data is a TIFF structure; its GPS directory is blanked in
 * place — entries and the values they point to zeroed, its entry count set
 * to 0 — so nothing moves, the length stays the same, and the rest of the
 * Exif data (orientation, camera, date) is kept intact.
 *
 * - JPEG: the segments before the image data are held (at most
 *   {@link MAX_HEAD} bytes) and every Exif APP1 segment is blanked.
 * - PNG: the chunks pass as they come, except an `eXIf` chunk (which may
 *   stand anywhere, even after the image data), held whole when it is at most
 *   {@link MAX_HEAD} bytes, blanked, and its CRC written anew.
 *
 * Anything else, or Exif data that does not parse, passes unchanged.
 */

/** The most bytes held while looking for Exif data; past it the stream passes unchanged. */
export const MAX_HEAD = 256 * 1024;

/** The TIFF tag pointing at the GPS directory. */
const GPS_IFD_TAG = 0x8825;
/** Bytes per value of each TIFF field type (index = type). */
const TYPE_SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8];
const EXIF_HEADER = [0x45, 0x78, 0x69, 0x66, 0, 0]; // "Exif\0\0"
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const EXIF_CHUNK = [0x65, 0x58, 0x49, 0x66]; // "eXIf"

/** Sends bytes on down the stream. */
type Enqueue = (bytes: Uint8Array) => void;

/** How one image format is walked: bytes in, bytes out, the held rest at the end. */
interface Walker {
  push(chunk: Uint8Array, enqueue: Enqueue): void;
  flush(enqueue: Enqueue): void;
}

/** A stream step that blanks GPS data in a JPEG or PNG; `removed` says whether it found any. */
export class GpsRemover {
  /** Pipe the image through this. */
  readonly stream: TransformStream<Uint8Array, Uint8Array>;
  #removed = false;

  constructor() {
    let walker: Walker | null = null;
    let start: Uint8Array = new Uint8Array(0);
    this.stream = new TransformStream({
      transform: (chunk, controller) => {
        const enqueue = (bytes: Uint8Array) => {
          if (bytes.byteLength > 0) controller.enqueue(bytes);
        };
        if (walker) return walker.push(chunk, enqueue);
        start = join(start, chunk);
        walker = this.#walkerFor(start);
        if (walker) walker.push(start, enqueue);
      },
      flush: (controller) => {
        const enqueue = (bytes: Uint8Array) => {
          if (bytes.byteLength > 0) controller.enqueue(bytes);
        };
        if (walker) walker.flush(enqueue);
        else enqueue(start);
      },
    });
  }

  /** Whether a GPS directory was blanked. */
  get removed(): boolean {
    return this.#removed;
  }

  /** The walker for the format `start` begins with; `null` until enough bytes arrived to tell. */
  #walkerFor(start: Uint8Array): Walker | null {
    const matches = (signature: number[]) =>
      signature.every((b, i) => i >= start.byteLength || start[i] === b);
    if (matches([0xff, 0xd8])) return start.byteLength < 2 ? null : this.#jpeg();
    if (matches(PNG_SIGNATURE)) return start.byteLength < 8 ? null : this.#png();
    return { push: (chunk, enqueue) => enqueue(chunk), flush: () => {} };
  }

  /** JPEG: holds the segments before the image data, then passes everything. */
  #jpeg(): Walker {
    let head: Uint8Array | null = new Uint8Array(0);
    return {
      push: (chunk, enqueue) => {
        if (head === null) return enqueue(chunk);
        head = join(head, chunk);
        if (this.#scanJpeg(head) === "more" && head.byteLength <= MAX_HEAD) return;
        enqueue(head);
        head = null;
      },
      flush: (enqueue) => {
        if (head !== null) enqueue(head);
      },
    };
  }

  /**
   * Walks the segments in `head`: `"more"` while a segment before the image
   * data is incomplete, `"done"` once past them (GPS blanked where found).
   */
  #scanJpeg(head: Uint8Array): "more" | "done" {
    let at = 2;
    while (true) {
      if (head.byteLength < at + 4) return "more";
      const marker = head[at + 1];
      if (head[at] !== 0xff || marker === 0xda || marker === 0xd9) return "done";
      const end = at + 2 + ((head[at + 2] << 8) | head[at + 3]);
      if (head.byteLength < end) return "more";
      const payload = head.subarray(at + 4, end);
      if (marker === 0xe1 && EXIF_HEADER.every((b, i) => payload[i] === b)) {
        if (blankGps(payload.subarray(EXIF_HEADER.length))) this.#removed = true;
      }
      at = end;
    }
  }

  /**
   * PNG: after the signature, chunk by chunk — a chunk header is held until
   * complete, an `eXIf` chunk until whole, and every other chunk passes as it
   * streams (`skip` bytes of it still to come).
   */
  #png(): Walker {
    let held: Uint8Array = new Uint8Array(0);
    let skip = PNG_SIGNATURE.length;
    return {
      push: (chunk, enqueue) => {
        let rest = join(held, chunk);
        held = new Uint8Array(0);
        while (rest.byteLength > 0) {
          if (skip > 0) {
            const passed = Math.min(skip, rest.byteLength);
            enqueue(rest.subarray(0, passed));
            rest = rest.subarray(passed);
            skip -= passed;
            continue;
          }
          if (rest.byteLength < 8) break;
          const whole = new DataView(rest.buffer, rest.byteOffset).getUint32(0) + 12;
          const exif = EXIF_CHUNK.every((b, i) => rest[4 + i] === b);
          if (!exif || whole > MAX_HEAD) {
            skip = whole;
            continue;
          }
          if (rest.byteLength < whole) break;
          const own = rest.slice(0, whole);
          if (blankGps(own.subarray(8, whole - 4))) {
            new DataView(own.buffer).setUint32(whole - 4, crc32(own.subarray(4, whole - 4)));
            this.#removed = true;
          }
          enqueue(own);
          rest = rest.subarray(whole);
        }
        held = rest.slice();
      },
      flush: (enqueue) => enqueue(held),
    };
  }
}

/** Blanks the GPS directory of a TIFF structure in place; `false` when there is none or it is malformed. */
export function blankGps(tiff: Uint8Array): boolean {
  if (tiff.byteLength < 8) return false;
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  if (!little && !(tiff[0] === 0x4d && tiff[1] === 0x4d)) return false;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const inside = (offset: number, length: number) =>
    offset >= 0 && length >= 0 && offset + length <= tiff.byteLength;
  const u16 = (offset: number) => view.getUint16(offset, little);
  const u32 = (offset: number) => view.getUint32(offset, little);

  const ifd0 = u32(4);
  if (!inside(ifd0, 2) || !inside(ifd0 + 2, u16(ifd0) * 12)) return false;
  let gps: number | null = null;
  for (let i = 0; i < u16(ifd0); i++) {
    const entry = ifd0 + 2 + i * 12;
    if (u16(entry) === GPS_IFD_TAG) gps = u32(entry + 8);
  }
  if (gps === null || !inside(gps, 2)) return false;
  const count = u16(gps);
  if (!inside(gps + 2, count * 12)) return false;
  // Check every value first, so a malformed directory is left as it was.
  const spans: [number, number][] = [];
  for (let i = 0; i < count; i++) {
    const entry = gps + 2 + i * 12;
    const size = (TYPE_SIZES[u16(entry + 2)] ?? 0) * u32(entry + 4);
    if (size > 4) {
      if (!inside(u32(entry + 8), size)) return false;
      spans.push([u32(entry + 8), size]);
    }
  }
  for (const [offset, size] of spans) tiff.fill(0, offset, offset + size);
  tiff.fill(0, gps, gps + 2 + count * 12);
  return true;
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

/** CRC-32 (ISO 3309, as PNG chunks carry it) of `bytes`. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}
