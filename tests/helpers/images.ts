/** Image bytes for tests, built by hand. */

/**
 * A small JPEG with one Exif segment at byte 12: IFD0 (orientation and the GPS
 * pointer) at TIFF offset 8, the GPS IFD at 38 with its latitude values at 68–91.
 */
export function jpegWithGps(little = true): Uint8Array {
  const tiff = new Uint8Array(100);
  const view = new DataView(tiff.buffer);
  const u16 = (at: number, v: number) => view.setUint16(at, v, little);
  const u32 = (at: number, v: number) => view.setUint32(at, v, little);
  tiff.set(little ? [0x49, 0x49] : [0x4d, 0x4d]);
  u16(2, 42);
  u32(4, 8);
  // IFD0 at 8: two entries, then next = 0.
  u16(8, 2);
  u16(10, 0x0112), u16(12, 3), u32(14, 1), u16(18, 6); // orientation
  u16(22, 0x8825), u16(24, 4), u32(26, 1), u32(30, 38); // GPS IFD at 38
  u32(34, 0);
  // GPS IFD at 38: latitude ref "N" inline, latitude 3 rationals at 68.
  u16(38, 2);
  u16(40, 1), u16(42, 2), u32(44, 2), tiff.set([0x4e, 0], 48);
  u16(52, 2), u16(54, 5), u32(56, 3), u32(60, 68);
  u32(64, 0);
  [52, 1, 31, 1, 4512, 100].forEach((v, i) => u32(68 + i * 4, v));
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const length = payload.length + 2;
  return new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe1,
    length >> 8,
    length & 0xff,
    ...payload,
    0xff,
    0xda,
    0,
    4,
    1,
    2,
    ...new Array(50).fill(7),
    0xff,
    0xd9,
  ]);
}
