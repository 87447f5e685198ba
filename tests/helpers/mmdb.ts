/**
 * A small, correct writer of MaxMind DB files (the format MaxMind documents
 * as "MaxMind DB File Format Specification" 2.0), enough for a
 * GeoLite2-Country-shaped test database: IPv4 networks, each mapped to
 * `{country: {iso_code}}`. The search tree has 24-bit records; the data
 * section and metadata use maps, strings, uint16/32/64 and arrays.
 */

const encoder = new TextEncoder();

/** Big-endian bytes of `n`, as few as needed (none for 0). */
function uintBytes(n: bigint): number[] {
  const out: number[] = [];
  while (n > 0n) {
    out.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return out;
}

/** The control byte(s) of a field of `type` (1–15) and `size` (< 29 here). */
function control(type: number, size: number): number[] {
  if (size >= 29) throw new Error("field too large for this writer");
  return type <= 7 ? [(type << 5) | size] : [size, type - 7];
}

/** A value of the data section. */
type Value = string | { uint16: number } | { uint32: number } | { uint64: bigint } | Value[] | {
  [key: string]: Value;
};

/** The encoding of `value`. */
export function encodeValue(value: Value): number[] {
  if (typeof value === "string") {
    const bytes = [...encoder.encode(value)];
    return [...control(2, bytes.length), ...bytes];
  }
  if (Array.isArray(value)) return [...control(11, value.length), ...value.flatMap(encodeValue)];
  if ("uint16" in value && typeof value.uint16 === "number") {
    const bytes = uintBytes(BigInt(value.uint16));
    return [...control(5, bytes.length), ...bytes];
  }
  if ("uint32" in value && typeof value.uint32 === "number") {
    const bytes = uintBytes(BigInt(value.uint32));
    return [...control(6, bytes.length), ...bytes];
  }
  if ("uint64" in value && typeof value.uint64 === "bigint") {
    const bytes = uintBytes(value.uint64);
    return [...control(9, bytes.length), ...bytes];
  }
  const entries = Object.entries(value as Record<string, Value>);
  return [
    ...control(7, entries.length),
    ...entries.flatMap(([k, v]) => [...encodeValue(k), ...encodeValue(v)]),
  ];
}

/** An IPv4 network (`a.b.c.d/len`) and the country it is in. */
export interface CountryNetwork {
  network: string;
  isoCode: string;
}

/** The bytes of a GeoLite2-Country-shaped IPv4 database of `networks`. */
export function countryMmdb(networks: CountryNetwork[]): Uint8Array {
  // The data section: one record per country, at its offset.
  const data: number[] = [];
  const offsets = new Map<string, number>();
  for (const { isoCode } of networks) {
    if (offsets.has(isoCode)) continue;
    offsets.set(isoCode, data.length);
    data.push(...encodeValue({ country: { iso_code: isoCode } }));
  }
  // The search tree: nodes of [left, right]; a record is a node index, "empty" or a data offset.
  type Record = { node: number } | { data: number } | null;
  const nodes: [Record, Record][] = [[null, null]];
  for (const { network, isoCode } of networks) {
    const [address, length] = network.split("/");
    const bits = address.split(".").reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;
    let node = 0;
    for (let depth = 0; depth < Number(length); depth++) {
      const bit = (bits >>> (31 - depth)) & 1;
      if (depth === Number(length) - 1) {
        nodes[node][bit] = { data: offsets.get(isoCode)! };
        break;
      }
      const next = nodes[node][bit];
      if (next !== null && "node" in next) node = next.node;
      else {
        nodes.push([null, null]);
        nodes[node][bit] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      }
    }
  }
  const count = nodes.length;
  const value = (r: Record) => r === null ? count : "node" in r ? r.node : count + 16 + r.data;
  const tree: number[] = [];
  for (const [left, right] of nodes) {
    for (const r of [value(left), value(right)]) {
      tree.push((r >> 16) & 0xff, (r >> 8) & 0xff, r & 0xff);
    }
  }
  const metadata = encodeValue({
    node_count: { uint32: count },
    record_size: { uint16: 24 },
    ip_version: { uint16: 4 },
    database_type: "GeoLite2-Country",
    languages: ["en"],
    binary_format_major_version: { uint16: 2 },
    binary_format_minor_version: { uint16: 0 },
    build_epoch: { uint64: 1_700_000_000n },
    description: { en: "Ferry's test countries" },
  });
  return new Uint8Array([
    ...tree,
    ...new Array(16).fill(0),
    ...data,
    ...[0xab, 0xcd, 0xef],
    ...encoder.encode("MaxMind.com"),
    ...metadata,
  ]);
}
