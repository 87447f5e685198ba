/**
 * The soak's file contents: bytes drawn from a seed, any span of which can be
 * made again without the rest (so a range download is checked byte for byte
 * and a 200 MB upload is never held whole), and their SHA-256.
 */
import { createSHA256 } from "hash-wasm";

/** Bytes `start`…`start + length - 1` of the content with `seed`. */
export function content(seed: number, start: number, length: number): Uint8Array {
  const first = Math.floor(start / 4);
  const words = new Uint32Array(Math.ceil((start + length) / 4) - first + 1);
  for (let i = 0; i < words.length; i++) words[i] = mix(seed, first + i);
  const offset = start - first * 4;
  return new Uint8Array(words.buffer, offset, length).slice();
}

/** The SHA-256 (hex) of the first `size` bytes of the content with `seed`. */
export async function contentSha256(seed: number, size: number): Promise<string> {
  const hash = await createSHA256();
  const step = 4 * 1024 * 1024;
  for (let at = 0; at < size; at += step) hash.update(content(seed, at, Math.min(step, size - at)));
  return hash.digest("hex");
}

/** The SHA-256 (hex) and length of a stream. */
export async function streamSha256(
  stream: ReadableStream<Uint8Array>,
): Promise<{ sha256: string; size: number }> {
  const hash = await createSHA256();
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { sha256: hash.digest("hex"), size };
}

/** A 32-bit hash of (seed, index): a counter-mode generator. */
function mix(seed: number, index: number): number {
  let x = (Math.imul(index, 0x9e3779b1) ^ Math.imul(seed, 0x85ebca77)) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}
