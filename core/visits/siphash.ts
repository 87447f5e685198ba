/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed pseudorandom function
 * of a 128-bit key and a message of any length to 64 bits, made for short
 * inputs. Plain TypeScript on 32-bit halves of each 64-bit word: a visitor's
 * address and agent (about 150 bytes) hash in well under a microsecond, where
 * HMAC-SHA-256 through node:crypto cost 4–7 µs a visitor
 * (`bench/results/visits.md`).
 */

/** A SipHash-2-4 key: 16 bytes. */
export const SIPHASH_KEY_BYTES = 16;

/** The character codes of the hex digits, by value. */
const HEX_CODES = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

/** `high` and `low` (32 bits each) as 16 hex digits, one flat string. */
const hex64 = (high: number, low: number): string =>
  String.fromCharCode(
    HEX_CODES[high >>> 28],
    HEX_CODES[(high >>> 24) & 15],
    HEX_CODES[(high >>> 20) & 15],
    HEX_CODES[(high >>> 16) & 15],
    HEX_CODES[(high >>> 12) & 15],
    HEX_CODES[(high >>> 8) & 15],
    HEX_CODES[(high >>> 4) & 15],
    HEX_CODES[high & 15],
    HEX_CODES[low >>> 28],
    HEX_CODES[(low >>> 24) & 15],
    HEX_CODES[(low >>> 20) & 15],
    HEX_CODES[(low >>> 16) & 15],
    HEX_CODES[(low >>> 12) & 15],
    HEX_CODES[(low >>> 8) & 15],
    HEX_CODES[(low >>> 4) & 15],
    HEX_CODES[low & 15],
  );

/** The little-endian 32-bit word of `b` at `i`. */
const word = (b: Uint8Array, i: number): number =>
  b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);

/**
 * SipHash-2-4 of `length` bytes of `message` under `key` (16 bytes), as 16
 * hex digits of the 64-bit result, most significant first (the reference
 * implementation's test vectors read as numbers). One function over local
 * variables (each 64-bit word as its high and low halves, kept as signed
 * 32-bit integers so that the compiled code never leaves integer
 * arithmetic; a carry is an unsigned comparison): a message word's
 * two rounds, then the finalization's four, run the same round code.
 */
export function sipHash24(key: Uint8Array, message: Uint8Array, length = message.length): string {
  if (key.length !== SIPHASH_KEY_BYTES) throw new Error("SipHash: a key is 16 bytes");
  const k0l = word(key, 0), k0h = word(key, 4), k1l = word(key, 8), k1h = word(key, 12);
  // v0..v3: the constants "somepseudorandomlygeneratedbytes" under the key.
  let v0l = 0x70736575 ^ k0l, v0h = 0x736f6d65 ^ k0h;
  let v1l = 0x6e646f6d ^ k1l, v1h = 0x646f7261 ^ k1h;
  let v2l = 0x6e657261 ^ k0l, v2h = 0x6c796765 ^ k0h;
  let v3l = 0x79746573 ^ k1l, v3h = 0x74656462 ^ k1h;
  const whole = length - (length % 8);
  // Blocks: each whole word, then the last (the remaining bytes, the length's low byte on
  // top), then the finalization (no message, four rounds).
  for (let at = 0; at <= whole + 8; at += 8) {
    let ml = 0, mh = 0, rounds = 2;
    if (at < whole) {
      ml = word(message, at);
      mh = word(message, at + 4);
    } else if (at === whole) {
      mh = (length & 255) << 24;
      for (let i = whole; i < length; i++) {
        const shift = 8 * (i - whole);
        if (shift < 32) ml |= message[i] << shift;
        else mh |= message[i] << (shift - 32);
      }
    } else {
      v2l ^= 0xff;
      rounds = 4;
    }
    v3l ^= ml;
    v3h ^= mh;
    for (let r = 0; r < rounds; r++) {
      let l: number, h: number;
      // v0 += v1; v1 <<<= 13; v1 ^= v0; v0 <<<= 32
      l = (v0l + v1l) | 0;
      v0h = (v0h + v1h + ((l >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0;
      v0l = l;
      h = (v1h << 13) | (v1l >>> 19);
      l = (v1l << 13) | (v1h >>> 19);
      v1h = h ^ v0h;
      v1l = l ^ v0l;
      h = v0h;
      v0h = v0l;
      v0l = h;
      // v2 += v3; v3 <<<= 16; v3 ^= v2
      l = (v2l + v3l) | 0;
      v2h = (v2h + v3h + ((l >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0;
      v2l = l;
      h = (v3h << 16) | (v3l >>> 16);
      l = (v3l << 16) | (v3h >>> 16);
      v3h = h ^ v2h;
      v3l = l ^ v2l;
      // v0 += v3; v3 <<<= 21; v3 ^= v0
      l = (v0l + v3l) | 0;
      v0h = (v0h + v3h + ((l >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0;
      v0l = l;
      h = (v3h << 21) | (v3l >>> 11);
      l = (v3l << 21) | (v3h >>> 11);
      v3h = h ^ v0h;
      v3l = l ^ v0l;
      // v2 += v1; v1 <<<= 17; v1 ^= v2; v2 <<<= 32
      l = (v2l + v1l) | 0;
      v2h = (v2h + v1h + ((l >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0;
      v2l = l;
      h = (v1h << 17) | (v1l >>> 15);
      l = (v1l << 17) | (v1h >>> 15);
      v1h = h ^ v2h;
      v1l = l ^ v2l;
      h = v2h;
      v2h = v2l;
      v2l = h;
    }
    v0l ^= ml;
    v0h ^= mh;
  }
  return hex64(v0h ^ v1h ^ v2h ^ v3h, v0l ^ v1l ^ v2l ^ v3l);
}
