/**
 * The one parser of size strings (`100mb`, `1.5 GB`, `1024`), used by the
 * settings, quotas and upload limits. Units are binary, as in the `bytes` npm
 * package Zipline uses: 1kb = 1024 bytes.
 */

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  mb: 1024 ** 2,
  gb: 1024 ** 3,
  tb: 1024 ** 4,
  pb: 1024 ** 5,
};

const PATTERN = /^\s*([+-]?(?:\d+(?:\.\d+)?|\.\d+))\s*(b|kb|mb|gb|tb|pb)?\s*$/i;

/**
 * The number of bytes a size string means, rounded down; `null` when it is not
 * a size. A bare number is bytes. The sign is kept: callers check the range.
 */
export function parseSize(input: string): number | null {
  const match = PATTERN.exec(input);
  if (!match) return null;
  const bytes = Math.floor(parseFloat(match[1]) * UNITS[(match[2] ?? "b").toLowerCase()]);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** `bytes` for people, in the units {@link parseSize} reads: `512 B`, `1.5 MB`. */
export function formatSize(bytes: number): string {
  const units = Object.entries(UNITS);
  let [unit, factor] = units[0];
  for (const [name, size] of units) if (bytes >= size) [unit, factor] = [name, size];
  const value = bytes / factor;
  const shown = factor === 1 ? String(bytes) : value.toFixed(value < 10 ? 1 : 0);
  return `${shown} ${unit.toUpperCase()}`;
}
