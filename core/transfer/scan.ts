/**
 * A streaming JSON reader for export documents. It walks, byte by byte, only
 * the containers the caller asks for (the document, `data`, each
 * collection); every other value is cut out whole and handed to `JSON.parse`,
 * which both validates and builds it at native speed. So a record costs one
 * `JSON.parse` of its own text, and memory holds one value at a time.
 * Every byte is checked: the walked containers here, the rest by `JSON.parse`.
 */

/** What the reader reports. */
export interface ScanHandler {
  /** Whether to walk into the object or array at `path` (else it is read whole). */
  walk(path: string[]): boolean;
  /** A value begins at `path`: a container or a plain value. */
  begin(path: string[], shape: "object" | "array" | "value"): void;
  /** A value read whole at `path`. */
  value(path: string[], value: unknown): void;
}

/** The document is not JSON; the message says where. */
export class JsonSyntaxError extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const ends = (b: number) => isSpace(b) || b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY;

/** Where a walked container is: before a key, after it, before a value, after one. */
type Expect = "first" | "key" | "colon" | "value" | "next";

interface Frame {
  object: boolean;
  /** The current key (objects) or index (arrays). */
  key: string;
  expect: Expect;
}

/** A value or key being cut out: its bytes so far and how deep the scan is inside it. */
interface Cut {
  path: string[] | null;
  kind: "string" | "container" | "plain";
  parts: Uint8Array[];
  depth: number;
  inString: boolean;
  escaped: boolean;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Reads a JSON document written to it in chunks; see the module comment. */
export class JsonScanner {
  private readonly stack: Frame[] = [];
  private cut: Cut | null = null;
  private started = false;
  private done = false;
  private offset = 0;

  constructor(private readonly handler: ScanHandler) {}

  /** Whether the whole document has been read. */
  get ended(): boolean {
    return this.done;
  }

  /** Reads the next bytes; throws {@link JsonSyntaxError} at the first fault. */
  write(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.cut) {
        i = this.scanCut(chunk, i);
        continue;
      }
      const b = chunk[i];
      if (!isSpace(b)) {
        this.step(i, b);
        if (this.cut) {
          this.scanFrom = i; // the cut starts at this byte: scan it from there
          continue;
        }
      }
      i++;
    }
    this.offset += chunk.length;
  }

  /** Ends the document; throws {@link JsonSyntaxError} when it is incomplete. */
  end(): void {
    if (this.cut?.kind === "plain" && this.stack.length === 0) this.finishCut(new Uint8Array(0));
    if (!this.done) throw new JsonSyntaxError("Unexpected end of the document");
  }

  private fail(what: string, at: number): never {
    throw new JsonSyntaxError(`${what} at byte ${this.offset + at}`);
  }

  private path(): string[] {
    return this.stack.map((f) => f.key);
  }

  /** Handles one byte outside any cut. */
  private step(i: number, b: number): void {
    const top = this.stack.at(-1);
    if (!top) {
      if (this.started) this.fail("Unexpected data after the document", i);
      this.started = true;
      return this.startValue(i, b, []);
    }
    switch (top.expect) {
      case "first":
      case "key":
        if (top.object && b === QUOTE) return this.startCut(null, "string");
        if (top.expect === "first" && b === (top.object ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          return this.close();
        }
        if (top.object) return this.fail("Expected a key", i);
        top.expect = "next";
        return this.startValue(i, b, this.path());
      case "colon":
        if (b !== COLON) this.fail("Expected ':'", i);
        top.expect = "value";
        return;
      case "value":
        top.expect = "next";
        return this.startValue(i, b, this.path());
      case "next":
        if (b === (top.object ? CLOSE_OBJECT : CLOSE_ARRAY)) return this.close();
        if (b !== COMMA) this.fail(`Expected ',' or '${top.object ? "}" : "]"}'`, i);
        top.expect = "key";
        if (!top.object) top.key = String(Number(top.key) + 1);
    }
  }

  private close(): void {
    this.stack.pop();
    if (this.stack.length === 0) this.done = true;
  }

  /** Where the current cut began in the chunk being read. */
  private scanFrom = 0;

  private startCut(path: string[] | null, kind: Cut["kind"]): void {
    this.cut = { path, kind, parts: [], depth: 0, inString: false, escaped: false };
  }

  private startValue(i: number, b: number, path: string[]): void {
    const container = b === OPEN_OBJECT || b === OPEN_ARRAY;
    this.handler.begin(path, b === OPEN_OBJECT ? "object" : b === OPEN_ARRAY ? "array" : "value");
    if (container && this.handler.walk(path)) {
      const object = b === OPEN_OBJECT;
      this.stack.push({ object, key: object ? "" : "0", expect: "first" });
      return;
    }
    if (b === CLOSE_OBJECT || b === CLOSE_ARRAY || b === COMMA || b === COLON) {
      this.fail(`Unexpected '${String.fromCharCode(b)}'`, i);
    }
    this.startCut(path, b === QUOTE ? "string" : container ? "container" : "plain");
  }

  /**
   * Scans the cut from byte `i`; returns the index of the first byte after
   * it, or the chunk's length when it goes on in the next chunk.
   */
  private scanCut(chunk: Uint8Array, i: number): number {
    const cut = this.cut!;
    for (let j = i; j < chunk.length; j++) {
      const c = chunk[j];
      if (cut.inString) {
        if (cut.escaped) cut.escaped = false;
        else if (c === BACKSLASH) cut.escaped = true;
        else if (c === QUOTE) {
          cut.inString = false;
          if (cut.kind === "string") {
            return this.finishCut(chunk.subarray(this.scanFrom, j + 1), j + 1);
          }
        }
        continue;
      }
      if (cut.kind === "plain") {
        if (ends(c)) return this.finishCut(chunk.subarray(this.scanFrom, j), j);
        continue;
      }
      if (c === QUOTE) cut.inString = true;
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) cut.depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--cut.depth === 0) return this.finishCut(chunk.subarray(this.scanFrom, j + 1), j + 1);
      }
    }
    cut.parts.push(chunk.slice(this.scanFrom));
    this.scanFrom = 0;
    return chunk.length;
  }

  /** Parses the cut's text (earlier parts and `last`), reports it or sets the key; returns `next`. */
  private finishCut(last: Uint8Array, next = 0): number {
    const cut = this.cut!;
    this.cut = null;
    this.scanFrom = 0;
    let bytes = last;
    if (cut.parts.length > 0) {
      const parts = [...cut.parts, last];
      bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let n = 0;
      for (const p of parts) {
        bytes.set(p, n);
        n += p.length;
      }
    }
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(bytes));
    } catch (error) {
      const where = cut.path === null ? "a key" : cut.path.join(".") || "the document";
      throw new JsonSyntaxError(`${(error as Error).message} (in ${where})`);
    }
    const top = this.stack.at(-1);
    if (cut.path === null) {
      top!.key = value as string;
      top!.expect = "colon";
    } else {
      this.handler.value(cut.path, value);
      if (!top) this.done = true;
    }
    return next;
  }
}
