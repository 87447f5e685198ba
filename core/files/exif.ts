/**
 * GPS removal from JPEG images (`filesRemoveGpsMetadata`) while they stream:
 * the segments before the image data are held (at most {@link MAX_HEAD}
 * bytes), every Exif APP1 segment's GPS directory is blanked in place —
 * entries and the values they point to zeroed, its entry count set to 0 —
 * and the bytes pass on. Nothing moves and the length stays the same, so the
 * rest of the Exif data (orientation, camera, date) is kept intact. Anything
 * that is not a JPEG, or whose Exif data does not parse, passes unchanged.
 */

/** The most bytes held while looking for Exif segments; past it the stream passes unchanged. */
export const MAX_HEAD = 256 * 1024;

/** The TIFF tag pointing at the GPS directory. */
const GPS_IFD_TAG = 0x8825;
/** Bytes per value of each TIFF field type (index = type). */
const TYPE_SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8];
const EXIF_HEADER = [0x45, 0x78, 0x69, 0x66, 0, 0]; // "Exif\0\0"

/** A stream step that blanks GPS data in a JPEG; `removed` says whether it found any. */
export class GpsRemover {
  /** Pipe the image through this. */
  readonly stream: TransformStream<Uint8Array, Uint8Array>;
  #removed = false;

  constructor() {
    let head: Uint8Array | null = new Uint8Array(0);
    this.stream = new TransformStream({
      transform: (chunk, controller) => {
        if (head === null) return controller.enqueue(chunk);
        head = join(head, chunk);
        const state = this.#scan(head);
        if (state === "more" && head.byteLength <= MAX_HEAD) return;
        controller.enqueue(head);
        head = null;
      },
      flush: (controller) => {
        if (head !== null && head.byteLength > 0) controller.enqueue(head);
      },
    });
  }

  /** Whether a GPS directory was blanked. */
  get removed(): boolean {
    return this.#removed;
  }

  /**
   * Walks the segments in `head`: `"more"` while a segment before the image
   * data is incomplete, `"done"` once past them (GPS blanked where found) or
   * when this is not a JPEG.
   */
  #scan(head: Uint8Array): "more" | "done" {
    if (head.byteLength < 2) return "more";
    if (head[0] !== 0xff || head[1] !== 0xd8) return "done";
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
