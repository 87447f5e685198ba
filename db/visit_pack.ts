/**
 * Raw visits packed: the groups (`VisitGroup`) of one target from one batch
 * as one compact byte string, which each backend stores as one value (a Deno
 * KV entry, a PostgreSQL row), so that a batch of many visitors costs the
 * store a few writes of bytes rather than a structured record per visitor
 * (V8's serializer or a JSON row each: 8–15 µs a new visitor, where a pack
 * costs about 1 µs; `bench/results/visits.md`). Pure functions, the same on
 * both stores.
 *
 * Format (version 1), all integers unsigned LEB128 varints:
 *
 * - byte 0: the version (1);
 * - the target's kind and id, then each group: its owner, referrer,
 *   country, browser, OS and device as *strings*, the visitor as a *text*
 *   (its UTF-8 length and bytes: each visitor's is its own), a byte for the bot
 *   flag, the number of its times, then each time as a little-endian float64
 *   (ms since the epoch);
 * - a *string* is `0` for `null`, `1` and a text for a
 *   string the pack has not held before (it takes the next index), or `2 + i`
 *   for the pack's i-th string: a pack names a browser, a referrer or an
 *   owner once however many visitors share it.
 *
 * A pack weighs at most the limit it is made with (a group whose times do
 * not fit continues in the next pack): Deno KV's values are at most 64 KiB.
 */
import type { VisitGroup, VisitTargetKind } from "./visits.ts";

/** The format this module writes. */
const VERSION = 1;

/** The most a pack weighs on either store (within Deno KV's 64 KiB a value). */
export const PACK_BYTES = 48 * 1024;

/** One pack: its target, its latest visit's time (ms), how many visits it holds, and its bytes. */
export interface VisitPack {
  targetKind: VisitTargetKind;
  targetId: string;
  /** The latest of its visits' times (ms): the retention deletes a pack after it. */
  at: number;
  visits: number;
  bytes: Uint8Array;
}

/** Room a string may take at most: a tag, a length and three bytes a UTF-16 unit. */
const stringRoom = (s: string | null): number => s === null ? 1 : 11 + 3 * s.length;

/** Writes packs of one target at a time, each at most `limit` bytes. */
class PackWriter {
  #buffer: Uint8Array;
  #view: DataView;
  #at = 0;
  /** The pack's strings so far → their index. */
  #strings = new Map<string, number>();
  #visits = 0;
  #latest = -Infinity;
  readonly packs: VisitPack[] = [];

  constructor(
    readonly kind: VisitTargetKind,
    readonly id: string,
    private readonly limit: number,
  ) {
    this.#buffer = new Uint8Array(1024);
    this.#view = new DataView(this.#buffer.buffer);
    this.#start();
  }

  /** Adds one group's visits, opening new packs as the limit asks. */
  add(g: VisitGroup): void {
    const head = 12 + stringRoom(g.ownerId) + stringRoom(g.referrer) + stringRoom(g.country) +
      stringRoom(g.browser) + stringRoom(g.os) + stringRoom(g.device) + stringRoom(g.visitor);
    let start = 0;
    while (start < g.times.length) {
      let room = Math.floor((this.limit - this.#at - head) / 8);
      if (room < 1) {
        if (this.#visits === 0) throw new Error("a visit outweighs a pack");
        this.#close();
        this.#start();
        room = Math.floor((this.limit - this.#at - head) / 8);
        if (room < 1) throw new Error("a visit outweighs a pack");
      }
      const end = Math.min(g.times.length, start + room);
      this.#group(g, head, start, end);
      start = end;
    }
  }

  /** The packs written, the last one closed. */
  finish(): VisitPack[] {
    if (this.#visits > 0) this.#close();
    return this.packs;
  }

  #start(): void {
    this.#at = 0;
    this.#strings.clear();
    this.#visits = 0;
    this.#latest = -Infinity;
    this.#ensure(1 + stringRoom(this.kind) + stringRoom(this.id));
    this.#buffer[this.#at++] = VERSION;
    this.#string(this.kind);
    this.#string(this.id);
  }

  #close(): void {
    this.packs.push({
      targetKind: this.kind,
      targetId: this.id,
      at: this.#latest,
      visits: this.#visits,
      bytes: this.#buffer.slice(0, this.#at),
    });
  }

  /** Writes `g` with its times from `start` to `end`. */
  #group(g: VisitGroup, head: number, start: number, end: number): void {
    this.#ensure(head + 8 * (end - start));
    this.#string(g.ownerId);
    this.#string(g.referrer);
    this.#string(g.country);
    this.#string(g.browser);
    this.#string(g.os);
    this.#string(g.device);
    this.#text(g.visitor);
    this.#buffer[this.#at++] = g.bot ? 1 : 0;
    this.#varint(end - start);
    for (let i = start; i < end; i++) {
      const time = g.times[i];
      this.#view.setFloat64(this.#at, time, true);
      this.#at += 8;
      if (time > this.#latest) this.#latest = time;
    }
    this.#visits += end - start;
  }

  #string(s: string | null): void {
    if (s === null) {
      this.#buffer[this.#at++] = 0;
      return;
    }
    const known = this.#strings.get(s);
    if (known !== undefined) {
      this.#varint(2 + known);
      return;
    }
    this.#strings.set(s, this.#strings.size);
    this.#buffer[this.#at++] = 1;
    this.#text(s);
  }

  /** `s` as its UTF-8 length and bytes. */
  #text(s: string): void {
    // ASCII is written as it is; anything else through the encoder.
    let ascii = true;
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) > 127) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      this.#varint(s.length);
      for (let i = 0; i < s.length; i++) this.#buffer[this.#at++] = s.charCodeAt(i);
    } else {
      const bytes = encoder.encode(s);
      this.#varint(bytes.length);
      this.#buffer.set(bytes, this.#at);
      this.#at += bytes.length;
    }
  }

  #varint(n: number): void {
    while (n >= 128) {
      this.#buffer[this.#at++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.#buffer[this.#at++] = n;
  }

  /** Room for `bytes` more. */
  #ensure(bytes: number): void {
    if (this.#at + bytes <= this.#buffer.length) return;
    const grown = new Uint8Array(Math.max(2 * this.#buffer.length, this.#at + bytes));
    grown.set(this.#buffer.subarray(0, this.#at));
    this.#buffer = grown;
    this.#view = new DataView(grown.buffer);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The packs of `groups` (of any targets): per target, in the order its
 * groups come, each pack at most `limit` bytes.
 */
export function packVisits(groups: VisitGroup[], limit: number): VisitPack[] {
  const writers = new Map<string, PackWriter>();
  // The last group's writer: a batch's groups of one target come in runs (no key made a group).
  let last: PackWriter | undefined;
  for (const g of groups) {
    let writer = last;
    if (writer === undefined || writer.id !== g.targetId || writer.kind !== g.targetKind) {
      const key = `${g.targetKind}\0${g.targetId}`;
      writer = writers.get(key);
      if (writer === undefined) {
        writers.set(key, writer = new PackWriter(g.targetKind, g.targetId, limit));
      }
      last = writer;
    }
    writer.add(g);
  }
  return [...writers.values()].flatMap((w) => w.finish());
}

/** The groups a pack holds, as written. Throws on bytes that are not a pack. */
export function unpackVisits(bytes: Uint8Array): VisitGroup[] {
  if (bytes[0] !== VERSION) throw new Error(`not a visit pack of version ${VERSION}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 1;
  const strings: string[] = [];
  const varint = (): number => {
    let n = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new Error("a visit pack ends early");
      const b = bytes[at++];
      n += (b & 127) * scale;
      if (b < 128) return n;
      scale *= 128;
    }
  };
  const text = (): string => {
    const length = varint();
    if (at + length > bytes.length) throw new Error("a visit pack ends early");
    const s = decoder.decode(bytes.subarray(at, at + length));
    at += length;
    return s;
  };
  const string = (): string | null => {
    const tag = varint();
    if (tag === 0) return null;
    if (tag >= 2) {
      const known = strings[tag - 2];
      if (known === undefined) throw new Error("a visit pack names a string it lacks");
      return known;
    }
    const s = text();
    strings.push(s);
    return s;
  };
  const targetKind = string() as VisitTargetKind;
  const targetId = string()!;
  const groups: VisitGroup[] = [];
  while (at < bytes.length) {
    const ownerId = string();
    const referrer = string();
    const country = string();
    const browser = string();
    const os = string();
    const device = string()!;
    const visitor = text();
    const bot = bytes[at++] === 1;
    const count = varint();
    if (at + 8 * count > bytes.length) throw new Error("a visit pack ends early");
    const times: number[] = [];
    for (let i = 0; i < count; i++, at += 8) times.push(view.getFloat64(at, true));
    groups.push({
      targetKind,
      targetId,
      ownerId,
      referrer,
      country,
      browser,
      os,
      device,
      bot,
      visitor,
      times,
    });
  }
  return groups;
}
