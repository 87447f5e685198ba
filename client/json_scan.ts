/**
 * A streaming reader of a JSON document's outline: it is given the bytes in
 * chunks, as a file's stream yields them, and tells how many members each
 * object or array it is told to follow holds and the values asked for by
 * their path, without ever holding the document or building the values it is
 * not asked for. So the dashboard can say what an export of hundreds of megabytes holds
 * before sending it, in the browser, while the page stays responsive.
 *
 * It reads bytes, not text: every byte JSON gives a meaning to is ASCII, and
 * no byte of a multi-byte UTF-8 character is, so only the values it keeps are
 * ever decoded. It trusts the document to be JSON (the server checks it); on
 * bytes that are not, it reports {@link JsonScanError}.
 */

/** Where a value sits: the keys and indexes from the top (`["data", "users", 0, "id"]`). */
export type JsonPath = readonly (string | number)[];

/** What the scan asks about the document's values, and what it tells. */
export interface JsonScanHandlers {
  /**
   * Whether the members of the object or array that is member `key` of the
   * followed container at `parent` are followed too (the top value always
   * is): their paths known, so that they may be wanted, and their own
   * containers' members counted. Unfollowed, they are only skipped over.
   */
  follow?(parent: JsonPath, key: string | number): boolean;
  /** Whether the value that is member `key` of the followed container at `parent` is wanted whole. */
  wants?(parent: JsonPath, key: string | number): boolean;
  /** A wanted value, parsed. */
  value?(path: JsonPath, value: unknown): void;
  /** A followed object or array (or one a followed container holds) closed with `members` members. */
  closed?(path: JsonPath, members: number): void;
}

/** The bytes are not JSON. */
export class JsonScanError extends Error {}

/** One open object or array. */
interface Frame {
  array: boolean;
  /** Its path, when its parent is followed (`null` below). */
  path: (string | number)[] | null;
  /** Whether its members are followed. */
  followed: boolean;
  members: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** `parts` as one array. */
function joined(parts: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

/** Whether `text` (ASCII) is the bytes `bytes[from..to)`. */
function sameAscii(text: string, bytes: Uint8Array, from: number, to: number): boolean {
  if (text.length !== to - from) return false;
  for (let k = from; k < to; k++) if (text.charCodeAt(k - from) !== bytes[k]) return false;
  return true;
}

/** `bytes` as text when they are a few plain ASCII ones (a number, a name), else `null`. */
function shortAscii(bytes: Uint8Array): string | null {
  if (bytes.length > 32) return null;
  let text = "";
  for (const b of bytes) {
    if (b >= 0x80) return null;
    text += String.fromCharCode(b);
  }
  return text;
}

/** Whether `b` is JSON whitespace. */
function blank(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Whether `b` may start a number or a literal (`true`, `false`, `null`). */
function startsScalar(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x74 || b === 0x66 || b === 0x6e;
}

/** The scan of one document, fed chunk by chunk. */
export class JsonScanner {
  readonly #handlers: JsonScanHandlers;
  readonly #decoder = new TextDecoder();
  readonly #stack: Frame[] = [];
  /** Inside a string; whether it is a key, and whether the last byte was a backslash. */
  #inString = false;
  #isKey = false;
  #escaped = false;
  /** Inside a number or literal. */
  #inScalar = false;
  /** In an object, waiting for a key (or its end). */
  #wantsKey = false;
  /** The key being read (in a followed object): its bytes so far, and where they go on. */
  #key: { parts: Uint8Array[]; from: number } | null = null;
  /** Short plain keys already read, by a hash of their bytes. */
  readonly #keys = new Map<number, string>();
  /** The last key read: the name of the member whose value comes next. */
  #member = "";
  /** The value being kept: its depth, path, and its bytes so far. */
  #capture: { depth: number; path: JsonPath; parts: Uint8Array[]; from: number } | null = null;
  #started = false;
  #done = false;
  /** Bytes read so far. */
  bytes = 0;

  constructor(handlers: JsonScanHandlers) {
    this.#handlers = handlers;
  }

  /** Whether the top value has ended. */
  get done(): boolean {
    return this.#done;
  }

  /** Reads the next bytes of the document. */
  push(chunk: Uint8Array): void {
    if (this.#capture) this.#capture.from = 0;
    if (this.#key) this.#key.from = 0;
    const n = chunk.length;
    // The next backslash of a long string (-1: none left; -2: not looked for yet).
    let backslash = -2;
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          continue;
        }
        // A string's end: the first bytes one by one (most strings are short), then a long
        // one's (an avatar's data URL) natively.
        let j = i;
        const near = Math.min(n, i + 32);
        while (j < near && chunk[j] !== QUOTE && chunk[j] !== BACKSLASH) j++;
        if (j === near && near < n) {
          if (backslash !== -1 && backslash < j) backslash = chunk.indexOf(BACKSLASH, j);
          const quote = chunk.indexOf(QUOTE, j);
          j = quote === -1 ? n : quote;
          if (backslash !== -1 && backslash < j) j = backslash;
        }
        if (j === n) break;
        if (chunk[j] === BACKSLASH) {
          this.#escaped = true;
          i = j + 1;
          continue;
        }
        this.#inString = false;
        this.#stringEnded(chunk, j);
        i = j + 1;
        continue;
      }
      const b = chunk[i];
      if (this.#inScalar) {
        if (!(blank(b) || b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY)) {
          i++;
          continue;
        }
        this.#inScalar = false;
        this.#ended(chunk, i, false);
      }
      if (!blank(b)) {
        if (this.#done) throw new JsonScanError("Something follows the document's end");
        this.#structural(chunk, i, b);
      }
      i++;
    }
    if (this.#capture) this.#capture.parts.push(chunk.slice(this.#capture.from));
    if (this.#key) this.#key.parts.push(chunk.slice(this.#key.from));
    this.bytes += n;
  }

  /** The document has no more bytes: throws unless its top value ended. */
  end(): void {
    if (this.#inScalar) {
      this.#inScalar = false;
      this.#ended(new Uint8Array(0), 0, false);
    }
    if (!this.#done) throw new JsonScanError("The document ends before its end");
  }

  /** The string being read ends at its closing quote, `chunk[quote]`. */
  #stringEnded(chunk: Uint8Array, quote: number) {
    if (!this.#isKey) {
      this.#ended(chunk, quote, true);
      return;
    }
    const key = this.#key;
    this.#key = null;
    if (!key) this.#member = "";
    else if (key.parts.length === 0) this.#member = this.#keyText(chunk, key.from, quote);
    else {
      key.parts.push(chunk.subarray(key.from, quote));
      const bytes = joined(key.parts);
      this.#member = this.#keyText(bytes, 0, bytes.length);
    }
  }

  /**
   * The key in `bytes[from..to)` as text. A short plain ASCII one (most keys,
   * the same few again and again) comes from the keys seen before, else it is
   * decoded and unescaped.
   */
  #keyText(bytes: Uint8Array, from: number, to: number): string {
    if (to - from <= 32) {
      let hash = to - from;
      let k = from;
      for (; k < to; k++) {
        const b = bytes[k];
        if (b >= 0x80 || b === BACKSLASH) break;
        hash = (Math.imul(hash, 31) + b) | 0;
      }
      if (k === to) {
        const known = this.#keys.get(hash);
        if (known !== undefined && sameAscii(known, bytes, from, to)) return known;
        let text = "";
        for (let m = from; m < to; m++) text += String.fromCharCode(bytes[m]);
        if (this.#keys.size < 4096) this.#keys.set(hash, text);
        return text;
      }
    }
    const text = this.#decoder.decode(bytes.subarray(from, to));
    return text.includes("\\") ? JSON.parse(`"${text}"`) : text;
  }

  #structural(chunk: Uint8Array, i: number, b: number) {
    const top = this.#stack.at(-1);
    if (this.#wantsKey) {
      if (b === QUOTE) {
        this.#inString = true;
        this.#isKey = true;
        this.#escaped = false;
        this.#key = top?.followed ? { parts: [], from: i + 1 } : null;
        this.#wantsKey = false;
        return;
      }
      if (b === CLOSE_OBJECT && top && !top.array && top.members === 0) {
        this.#wantsKey = false;
        this.#close(chunk, i);
        return;
      }
      throw new JsonScanError("An object's member has no name");
    }
    if (b === COLON) return;
    if (b === COMMA) {
      if (!top) throw new JsonScanError("A comma outside any object or array");
      this.#wantsKey = !top.array;
      return;
    }
    if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      if (!top || top.array !== (b === CLOSE_ARRAY)) {
        throw new JsonScanError("A bracket closes what it did not open");
      }
      this.#close(chunk, i);
      return;
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      const [path, followed] = this.#begin(i, true);
      this.#stack.push({ array: b === OPEN_ARRAY, path, followed, members: 0 });
      this.#wantsKey = b === OPEN_OBJECT;
      return;
    }
    if (b === QUOTE) {
      this.#begin(i, false);
      this.#inString = true;
      this.#isKey = false;
      this.#escaped = false;
      return;
    }
    if (startsScalar(b)) {
      this.#begin(i, false);
      this.#inScalar = true;
      return;
    }
    throw new JsonScanError(
      this.#started ? "A byte that JSON does not allow here" : "The file is not a JSON document",
    );
  }

  /**
   * A value (a `container` or not) starts at byte `i` of the chunk: counts
   * it, starts keeping it if wanted; its path (when its parent is followed)
   * and whether its members are followed.
   */
  #begin(i: number, container: boolean): [(string | number)[] | null, boolean] {
    if (this.#started && this.#stack.length === 0) {
      throw new JsonScanError("Something follows the document's end");
    }
    this.#started = true;
    const parent = this.#stack.at(-1);
    if (!parent) return [[], true];
    const key = parent.array ? parent.members : this.#member;
    parent.members++;
    if (!parent.followed) return [null, false];
    const handlers = this.#handlers;
    const parentPath = parent.path!;
    const wanted = !this.#capture && (handlers.wants?.(parentPath, key) ?? false);
    const followed = container && (handlers.follow?.(parentPath, key) ?? true);
    const path = wanted || container ? [...parentPath, key] : null;
    if (wanted) this.#capture = { depth: this.#stack.length, path: path!, parts: [], from: i };
    return [path, followed];
  }

  /** The value at the current depth ended at `chunk[i]` (with it when `inclusive`). */
  #ended(chunk: Uint8Array, i: number, inclusive: boolean) {
    const capture = this.#capture;
    if (capture && capture.depth === this.#stack.length) {
      const last = chunk.subarray(capture.from, inclusive ? i + 1 : i);
      const bytes = capture.parts.length === 0 ? last : joined([...capture.parts, last]);
      this.#capture = null;
      let value: unknown;
      try {
        value = JSON.parse(shortAscii(bytes) ?? this.#decoder.decode(bytes));
      } catch {
        throw new JsonScanError("A value that is not JSON");
      }
      this.#handlers.value?.(capture.path, value);
    }
    if (this.#stack.length === 0) this.#done = true;
  }

  #close(chunk: Uint8Array, i: number) {
    const frame = this.#stack.pop()!;
    if (frame.path !== null) this.#handlers.closed?.(frame.path, frame.members);
    this.#ended(chunk, i, true);
  }
}

/** The most bytes read between two looks at the clock. */
const SLICE = 64 * 1024;

/**
 * Resolves in a task of its own, after what the page has waiting (input,
 * drawing): a message to itself, which, unlike a timer, no browser delays.
 */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      port2.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/**
 * Scans `stream` through `handlers`, reporting the bytes read to `progress`;
 * between chunks, and every few milliseconds within a long run of them, it
 * gives the page its turn, so a large file never freezes it. Stops early when
 * `signal` aborts.
 */
export async function scanStream(
  stream: ReadableStream<Uint8Array>,
  handlers: JsonScanHandlers,
  options: { progress?: (bytes: number) => void; signal?: AbortSignal } = {},
): Promise<void> {
  const scanner = new JsonScanner(handlers);
  const reader = stream.getReader();
  let since = performance.now();
  try {
    while (true) {
      options.signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      // A stream's chunk may be megabytes: read in slices, with the page's turn between them.
      for (let at = 0; at < value.length; at += SLICE) {
        scanner.push(value.subarray(at, at + SLICE));
        options.progress?.(scanner.bytes);
        if (performance.now() - since > 30) {
          await nextTask();
          since = performance.now();
        }
      }
    }
    scanner.end();
  } finally {
    reader.releaseLock();
  }
}
