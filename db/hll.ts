/**
 * HyperLogLog sketches of unique visitors (pure functions): what the visit
 * roll-ups keep per roll-up and hour instead of a mark per visitor.
 *
 * - Input: the visitor hash, 64 bits of a salted SipHash-2-4 (16 hex
 *   digits, `core/visits/salt.ts`), used as it is; any other string (tests,
 *   documents made by hand) is hashed with SHA-256 first.
 * - Dense: {@link P} = 14, 16,384 registers of 6 bits (12,288 bytes): a
 *   standard error of 1.04 / √16384 ≈ 0.81 %, so 99.7 % of estimates within
 *   ±2.4 % ({@link ERROR_BOUND}); estimated with Ertl's improved estimator
 *   ("New cardinality estimation algorithms for HyperLogLog sketches", 2017),
 *   which needs no empirical bias tables and covers small and large counts.
 * - Sparse (as in HLL++): while a sketch holds at most {@link SPARSE_MAX}
 *   visitors it is their sorted entries at a precision of
 *   {@link SPARSE_P} = 25 bits (4 bytes each), estimated by linear counting
 *   over 2^25 registers: exact in practice (two of 1,000 visitors share an
 *   entry with a chance of 1.5 %; 100: 0.015 %), and it turns dense exactly as
 *   if it had been dense all along.
 * - Union: register-wise max (entries: the larger of equal indexes), so a
 *   day is the union of its hours and sketches written by several instances
 *   merge without loss, in any order.
 *
 * Stored form ({@link encodeSketch}): one byte `1` and 4 bytes an entry
 * (little-endian), or one byte `2` and the 12,288 bytes of the registers.
 */
import { createHash } from "node:crypto";

/** The dense precision: 2^14 registers. */
export const P = 14;
/** Registers of a dense sketch. */
export const M = 1 << P;
/** The sparse precision. */
export const SPARSE_P = 25;
/** Entries a sparse sketch holds at most: past this it is dense (the same bytes). */
export const SPARSE_MAX = (M * 6) / 8 / 4;
/** The relative standard error of a dense estimate. */
const STANDARD_ERROR = 1.04 / Math.sqrt(M);
/** Three standard errors: the bound 99.7 % of dense estimates fall within. */
export const ERROR_BOUND = 3 * STANDARD_ERROR;

/**
 * A sketch: sorted sparse entries (`index << 6 | rank` at {@link SPARSE_P}
 * bits, one per index) or the {@link M} dense registers.
 */
export type Sketch = Uint32Array | Uint8Array;

const SPARSE = 1;
const DENSE = 2;
/** Bits a dense register's rank is counted over: 64 - P. */
const Q = 64 - P;

/** The sparse entry of a visitor hash. */
export function entryOf(visitor: string): number {
  let hi = -1;
  let lo = -1;
  if (visitor.length === 16) {
    // 16 lower-case hex digits read in place (no slices: a batch reads one a visitor).
    hi = hexWord(visitor, 0);
    if (hi >= 0) lo = hexWord(visitor, 8);
  }
  if (lo < 0) {
    const digest = createHash("sha256").update(visitor).digest();
    hi = digest.readUInt32BE(0);
    lo = digest.readUInt32BE(4);
  }
  const index = hi >>> (32 - SPARSE_P);
  // The rank: leading zeros of the 39 bits after the index, plus one.
  const rest = hi & ((1 << (32 - SPARSE_P)) - 1);
  const rank = rest !== 0
    ? Math.clz32(rest) - SPARSE_P + 1
    : lo !== 0
    ? 32 - SPARSE_P + Math.clz32(lo) + 1
    : 64 - SPARSE_P + 1;
  return index * 64 + rank;
}

/** The 32 bits of the 8 lower-case hex digits of `s` from `at`; `-1` when one is not. */
function hexWord(s: string, at: number): number {
  let word = 0;
  for (let i = at; i < at + 8; i++) {
    const c = s.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    word = word * 16 + digit;
  }
  return word;
}

/** The sketch of `entries` (from {@link entryOf}, in any order, repeats allowed). */
export function sketchOf(entries: Iterable<number>): Sketch {
  const sorted = Uint32Array.from(entries).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) {
    // Equal indexes: the larger rank (sorted last) wins.
    if (n > 0 && sorted[n - 1] >>> 6 === sorted[i] >>> 6) sorted[n - 1] = sorted[i];
    else sorted[n++] = sorted[i];
  }
  const sparse = sorted.slice(0, n);
  return n > SPARSE_MAX ? densify(sparse) : sparse;
}

/** The dense registers of sparse `entries`. */
function densify(entries: Uint32Array): Uint8Array {
  const registers = new Uint8Array(M);
  addEntries(registers, entries);
  return registers;
}

/** Raises `registers` by sparse `entries`. */
function addEntries(registers: Uint8Array, entries: Uint32Array): void {
  const low = SPARSE_P - P;
  for (const entry of entries) {
    const index = entry >>> 6;
    const between = index & ((1 << low) - 1);
    const rank = between !== 0 ? Math.clz32(between) - (32 - low) + 1 : low + (entry & 63);
    const at = index >>> low;
    if (rank > registers[at]) registers[at] = rank;
  }
}

/** The union of two sketches (neither is changed). */
export function union(a: Sketch, b: Sketch): Sketch {
  if (a instanceof Uint32Array && b instanceof Uint32Array) {
    const merged = new Uint32Array(a.length + b.length);
    let i = 0, j = 0, n = 0;
    while (i < a.length || j < b.length) {
      const x = i < a.length ? a[i] : Infinity;
      const y = j < b.length ? b[j] : Infinity;
      if (x >>> 6 === y >>> 6 && x !== Infinity && y !== Infinity) {
        merged[n++] = Math.max(x, y);
        i++, j++;
      } else if (x < y) merged[n++] = a[i++];
      else merged[n++] = b[j++];
    }
    const sparse = merged.slice(0, n);
    return n > SPARSE_MAX ? densify(sparse) : sparse;
  }
  const registers = a instanceof Uint8Array ? a.slice() : densify(a);
  if (b instanceof Uint8Array) {
    for (let k = 0; k < M; k++) if (b[k] > registers[k]) registers[k] = b[k];
  } else addEntries(registers, b);
  return registers;
}

/** The union of every sketch of `sketches`; `null` when there is none. */
export function unionAll(sketches: Iterable<Sketch>): Sketch | null {
  let dense: Uint8Array | null = null;
  let sparse: Sketch | null = null;
  for (const sketch of sketches) {
    if (sketch instanceof Uint8Array) {
      if (dense === null) dense = sketch.slice();
      else for (let k = 0; k < M; k++) if (sketch[k] > dense[k]) dense[k] = sketch[k];
    } else sparse = sparse === null ? sketch : union(sparse, sketch);
  }
  if (dense === null) return sparse;
  return sparse === null ? dense : union(dense, sparse);
}

/** The estimated number of distinct visitors of `sketch`, rounded. */
export function estimate(sketch: Sketch): number {
  if (sketch instanceof Uint32Array) {
    const m = 2 ** SPARSE_P;
    return Math.round(m * Math.log(m / (m - sketch.length)));
  }
  const counts = new Array<number>(Q + 2).fill(0);
  for (let k = 0; k < M; k++) counts[sketch[k]]++;
  let z = M * tau(1 - counts[Q + 1] / M);
  for (let k = Q; k >= 1; k--) z = 0.5 * (z + counts[k]);
  z += M * sigma(counts[0] / M);
  return Math.round((M * M) / (2 * Math.LN2 * z));
}

/** Ertl's σ (the empty registers' term). */
function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const before = z;
    z += x * y;
    y += y;
    if (z === before) return z;
  }
}

/** Ertl's τ (the full registers' term). */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const before = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === before) return z / 3;
  }
}

/** The stored bytes of `sketch` (see the module's doc). */
export function encodeSketch(sketch: Sketch): Uint8Array {
  if (sketch instanceof Uint32Array) {
    const bytes = new Uint8Array(1 + 4 * sketch.length);
    bytes[0] = SPARSE;
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < sketch.length; i++) view.setUint32(1 + 4 * i, sketch[i], true);
    return bytes;
  }
  const bytes = new Uint8Array(1 + (M * 6) / 8);
  bytes[0] = DENSE;
  for (let k = 0, at = 1; k < M; k += 4, at += 3) {
    const word = sketch[k] | sketch[k + 1] << 6 | sketch[k + 2] << 12 | sketch[k + 3] << 18;
    bytes[at] = word & 255;
    bytes[at + 1] = (word >>> 8) & 255;
    bytes[at + 2] = word >>> 16;
  }
  return bytes;
}

/** The sketch of stored `bytes` ({@link encodeSketch}); throws on bytes of no sketch. */
export function decodeSketch(bytes: Uint8Array): Sketch {
  if (bytes[0] === SPARSE && (bytes.length - 1) % 4 === 0) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const entries = new Uint32Array((bytes.length - 1) / 4);
    for (let i = 0; i < entries.length; i++) entries[i] = view.getUint32(1 + 4 * i, true);
    return entries;
  }
  if (bytes[0] === DENSE && bytes.length === 1 + (M * 6) / 8) {
    const registers = new Uint8Array(M);
    for (let k = 0, at = 1; k < M; k += 4, at += 3) {
      const word = bytes[at] | bytes[at + 1] << 8 | bytes[at + 2] << 16;
      registers[k] = word & 63;
      registers[k + 1] = (word >>> 6) & 63;
      registers[k + 2] = (word >>> 12) & 63;
      registers[k + 3] = word >>> 18;
    }
    return registers;
  }
  throw new Error("not a stored sketch");
}
