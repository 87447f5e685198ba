/**
 * Values too large for one Deno KV value (64 KiB, measured in V8's encoding,
 * which can be larger than the JSON): kept as their JSON's UTF-8 bytes, cut
 * into pieces that each fit one value, and read back whole.
 */

/** The most bytes one piece holds. */
const PIECE_BYTES = 60 * 1024;

/** The JSON of `value` cut into pieces that each fit one KV value. */
export function toPieces(value: unknown): Uint8Array[] {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += PIECE_BYTES) {
    pieces.push(bytes.subarray(at, at + PIECE_BYTES));
  }
  return pieces;
}

/** The value {@link toPieces} cut into `pieces`, in order. */
export function fromPieces(pieces: Uint8Array[]): unknown {
  const whole = new Uint8Array(pieces.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const piece of pieces) {
    whole.set(piece, at);
    at += piece.byteLength;
  }
  return JSON.parse(new TextDecoder().decode(whole));
}
