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

/** Hex digits of a byte, by value. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** The hex of a 32-bit value, 8 digits, most significant first. */
const hex32 = (n: number): string =>
  HEX[n >>> 24] + HEX[(n >>> 16) & 255] + HEX[(n >>> 8) & 255] + HEX[n & 255];

/** The little-endian 32-bit word of `b` at `i`. */
const word = (b: Uint8Array, i: number): number =>
  (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;

/**
 * SipHash-2-4 of `length` bytes of `message` under `key` (16 bytes), as 16
 * hex digits of the 64-bit result, most significant first (the reference
 * implementation's test vectors read as numbers).
 */
export function sipHash24(key: Uint8Array, message: Uint8Array, length = message.length): string {
  if (key.length !== SIPHASH_KEY_BYTES) throw new Error("SipHash: a key is 16 bytes");
  const v = state;
  const k0l = word(key, 0), k0h = word(key, 4), k1l = word(key, 8), k1h = word(key, 12);
  // v0..v3 as (low, high) halves: the constants "somepseudorandomlygeneratedbytes".
  v[V0L] = 0x70736575 ^ k0l;
  v[V0H] = 0x736f6d65 ^ k0h;
  v[V1L] = 0x6e646f6d ^ k1l;
  v[V1H] = 0x646f7261 ^ k1h;
  v[V2L] = 0x6e657261 ^ k0l;
  v[V2H] = 0x6c796765 ^ k0h;
  v[V3L] = 0x79746573 ^ k1l;
  v[V3H] = 0x74656462 ^ k1h;
  const whole = length - (length % 8);
  for (let i = 0; i < whole; i += 8) compress(v, word(message, i), word(message, i + 4));
  // The last block: the remaining bytes, the length's low byte in the top byte.
  let ml = 0, mh = (length & 255) << 24;
  for (let i = whole; i < length; i++) {
    const at = i - whole;
    if (at < 4) ml |= message[i] << (8 * at);
    else mh |= message[i] << (8 * (at - 4));
  }
  compress(v, ml, mh);
  v[V2L] ^= 0xff;
  sipRound(v);
  sipRound(v);
  sipRound(v);
  sipRound(v);
  return hex32((v[V0H] ^ v[V1H] ^ v[V2H] ^ v[V3H]) >>> 0) +
    hex32((v[V0L] ^ v[V1L] ^ v[V2L] ^ v[V3L]) >>> 0);
}

/** The state's words: v0..v3, each as its low and high 32 bits. */
const V0L = 0, V0H = 1, V1L = 2, V1H = 3, V2L = 4, V2H = 5, V3L = 6, V3H = 7;
/** The state, reused (a hash never yields). */
const state = new Uint32Array(8);

/** One message word (low and high halves) into the state: SipHash-2-4's two rounds. */
function compress(v: Uint32Array, ml: number, mh: number): void {
  v[V3L] ^= ml;
  v[V3H] ^= mh;
  sipRound(v);
  sipRound(v);
  v[V0L] ^= ml;
  v[V0H] ^= mh;
}

/** `a += b` on the 64-bit words at `a` and `b` (low halves; high at +1). */
function add(v: Uint32Array, a: number, b: number): void {
  const low = v[a] + v[b];
  v[a + 1] = v[a + 1] + v[b + 1] + (low > 0xffffffff ? 1 : 0);
  v[a] = low;
}

/** `x = (x <<< n) ^ v[into]` on the 64-bit word at `x` (0 < n < 32). */
function rotateXor(v: Uint32Array, x: number, n: number, into: number): void {
  const low = v[x], high = v[x + 1];
  v[x] = ((low << n) | (high >>> (32 - n))) ^ v[into];
  v[x + 1] = ((high << n) | (low >>> (32 - n))) ^ v[into + 1];
}

/** The word at `x` rotated by 32: its halves swapped. */
function swap(v: Uint32Array, x: number): void {
  const low = v[x];
  v[x] = v[x + 1];
  v[x + 1] = low;
}

/** One SipRound. */
function sipRound(v: Uint32Array): void {
  add(v, V0L, V1L);
  rotateXor(v, V1L, 13, V0L);
  swap(v, V0L);
  add(v, V2L, V3L);
  rotateXor(v, V3L, 16, V2L);
  add(v, V0L, V3L);
  rotateXor(v, V3L, 21, V0L);
  add(v, V2L, V1L);
  rotateXor(v, V1L, 17, V2L);
  swap(v, V2L);
}
