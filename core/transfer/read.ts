/**
 * Reads an export document as it streams in and validates it record by
 * record, before anything is written: each record under a collection path
 * (`data.files.*`, `users.*`) is checked with its kind's zod schema and
 * appended to the {@link Spool}; the small parts (`versions`, `request`,
 * `config`) are kept. Memory holds one record at a time. Any problem, from a
 * broken byte to a bad field in the last record, is a 400 whose `issues` say
 * where, with nothing written yet.
 */
import type { z } from "zod";
import { ApiError, type Issue } from "../errors.ts";
import { JsonScanner, JsonSyntaxError, type ScanHandler } from "./scan.ts";
import type { Spool } from "./spool.ts";

/** A body larger than this is refused: Zipline's limit for imports (24 GiB). */
export const MAX_IMPORT_BYTES = 24 * 1024 ** 3;
/** Reading stops after this many issues. */
const MAX_ISSUES = 20;

/** A collection of records in a document. */
export interface Collection {
  /** The spool kind its records go to. */
  kind: string;
  schema: z.ZodType;
  /** `array` (v4: `[record, …]`) or `object` (v3: `{id: record, …}`; records spool as `[id, record]`). */
  container: "array" | "object";
  /** May be absent (counts as empty). */
  optional?: boolean;
}

/** Where a document format keeps what. */
export interface DocumentLayout {
  /** The key of the wrapped form (`{export4: document, config}`). */
  wrapper: string;
  /** The wrapped form's other keys, with their schemas (`config`, `importFromUser`). */
  options: Record<string, { schema: z.ZodType; required: boolean }>;
  /** Small parts of the document, by dotted path, with their schemas; all required. */
  parts: Record<string, z.ZodType>;
  /** Collections by dotted path. */
  collections: Record<string, Collection>;
}

/** What reading a document gives back; the records are in the spool. */
export interface ReadDocument {
  /** The validated parts, by path. */
  parts: Record<string, unknown>;
  /** The validated options of the wrapped form (empty for a bare document). */
  options: Record<string, unknown>;
  /** Whether the body was the wrapped form. */
  wrapped: boolean;
}

type Shape = "object" | "array" | "value";

/**
 * Which paths the document is read at: `patterns` (dotted, `*` for any key)
 * name the values wanted; the containers on the way to them are walked. It
 * also keeps the shapes of the containers and values around the records (to
 * know which were present, an empty array yielding no record) and the
 * document's top-level keys in order.
 */
class Structure implements ScanHandler {
  readonly seen = new Map<string, Shape>();
  readonly rootKeys: string[] = [];
  private readonly patterns: string[][];

  constructor(
    patterns: string[],
    private readonly onValue: (path: string[], value: unknown) => void,
  ) {
    this.patterns = patterns.map((p) => p.split("."));
  }

  /** How `path` relates to the patterns: a wanted value, a way to one, or neither. */
  private match(path: string[]): "value" | "way" | null {
    let way = false;
    for (const pattern of this.patterns) {
      if (pattern.length < path.length) continue;
      if (!path.every((key, i) => pattern[i] === "*" || pattern[i] === key)) continue;
      if (pattern.length === path.length) return "value";
      way = true;
    }
    return way ? "way" : null;
  }

  walk(path: string[]): boolean {
    return this.match(path) === "way";
  }

  begin(path: string[], shape: Shape): void {
    if (path.length === 1) this.rootKeys.push(path[0]);
    if (path.length <= 3 && !this.isRecord(path)) this.seen.set(path.join("."), shape);
  }

  value(path: string[], value: unknown): void {
    if (this.match(path) === "value") this.onValue(path, value);
  }

  /** A record of a collection (a path ending where a pattern has `*`). */
  private isRecord(path: string[]): boolean {
    return this.patterns.some((p) =>
      p.length === path.length && p.at(-1) === "*" &&
      path.every((key, i) => p[i] === "*" || p[i] === key)
    );
  }
}

function issuesOf(error: z.ZodError, path: string[]): Issue[] {
  return error.issues.map((i) => ({
    path: [...path, ...i.path.map(String)],
    message: i.message,
    code: i.code,
  }));
}

/**
 * Streams `body` through the {@link JsonScanner}, validating and spooling every record
 * of `layout`; throws a 400 {@link ApiError} listing the issues (at most 20)
 * when anything is wrong.
 */
export async function readDocument(
  body: ReadableStream<Uint8Array>,
  layout: DocumentLayout,
  spool: Spool,
): Promise<ReadDocument> {
  const w = layout.wrapper;
  const paths = [
    ...Object.keys(layout.options),
    ...Object.keys(layout.parts).flatMap((p) => [p, `${w}.${p}`]),
    ...Object.keys(layout.collections).flatMap((c) => [`${c}.*`, `${w}.${c}.*`]),
  ];
  const pending: { path: string[]; key: string; value: unknown }[] = [];
  const tracker = new Structure(paths, (path, value) => {
    pending.push({ path: path.slice(0, -1), key: path.at(-1)!, value });
  });
  const scanner = new JsonScanner(tracker);
  const issues: Issue[] = [];
  let failure: Error | null = null;

  const parts: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  const docKeys = documentKeys(layout);
  // The first top-level key that tells the forms apart decides which one the body is.
  const wrapped = () => {
    const telling = tracker.rootKeys.find((k) => k === w || k in layout.options || k in docKeys);
    return telling !== undefined && !(telling in docKeys);
  };
  const handle = async (item: { path: string[]; key: string; value: unknown }) => {
    const full = [...item.path, item.key];
    if (item.path.length === 0 && item.key in layout.options) {
      const parsed = layout.options[item.key].schema.safeParse(item.value);
      if (parsed.success) options[item.key] = parsed.data;
      else issues.push(...issuesOf(parsed.error, full));
      return;
    }
    const inner = wrapped() ? (item.path[0] === w ? item.path.slice(1) : null) : item.path;
    if (inner === null || (!wrapped() && item.path[0] === w)) return;
    const part = [...inner, item.key].join(".");
    if (part in layout.parts) {
      const parsed = layout.parts[part].safeParse(item.value);
      if (parsed.success) parts[part] = parsed.data;
      else issues.push(...issuesOf(parsed.error, full));
      return;
    }
    const collection = layout.collections[inner.join(".")];
    if (!collection) return;
    const parsed = collection.schema.safeParse(item.value);
    if (!parsed.success) issues.push(...issuesOf(parsed.error, full));
    else if (issues.length === 0) {
      await spool.add(
        collection.kind,
        collection.container === "object" ? [item.key, parsed.data] : parsed.data,
      );
    }
  };

  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > MAX_IMPORT_BYTES) throw new ApiError(413, "The import document is too large");
    try {
      scanner.write(chunk);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      failure = error;
    }
    for (const item of pending.splice(0)) await handle(item);
    if (failure || issues.length >= MAX_ISSUES) break;
  }
  if (failure) {
    const message = `The body is not valid JSON: ${failure.message}`;
    throw new ApiError(400, message, [{ path: [], message, code: "invalid_json" }]);
  }
  if (bytes === 0) {
    throw new ApiError(400, "The body is empty", [{
      path: [],
      message: "expected an export document",
      code: "invalid_type",
    }]);
  }
  if (issues.length === 0) {
    try {
      scanner.end();
      for (const item of pending.splice(0)) await handle(item);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      issues.push({ path: [], message: "The document ends too early", code: "invalid_json" });
    }
  }
  if (issues.length === 0) issues.push(...structureIssues(layout, tracker, wrapped(), options));
  if (issues.length > 0) {
    const [first] = issues;
    const where = first.path.length ? first.path.join("/") + " " : "";
    throw new ApiError(400, `Invalid import document: ${where}${first.message}`, issues);
  }
  return { parts, options, wrapped: wrapped() };
}

/** The top-level keys of a bare document. */
function documentKeys(layout: DocumentLayout): Record<string, true> {
  const keys: Record<string, true> = {};
  for (const path of [...Object.keys(layout.parts), ...Object.keys(layout.collections)]) {
    keys[path.split(".")[0]] = true;
  }
  return keys;
}

/** Missing or mis-shaped parts and collections, and missing required options. */
function structureIssues(
  layout: DocumentLayout,
  tracker: Structure,
  wrapped: boolean,
  options: Record<string, unknown>,
): Issue[] {
  const issues: Issue[] = [];
  if (tracker.seen.get("") !== "object") {
    return [{ path: [], message: "expected an object", code: "invalid_type" }];
  }
  const prefix = wrapped ? [layout.wrapper] : [];
  if (wrapped) {
    if (tracker.seen.get(layout.wrapper) !== "object") {
      issues.push({ path: [layout.wrapper], message: "expected an object", code: "invalid_type" });
    }
    for (const [key, option] of Object.entries(layout.options)) {
      if (option.required && !(key in options) && !tracker.seen.has(key)) {
        issues.push({ path: [key], message: "Required", code: "invalid_type" });
      }
    }
  }
  for (const path of Object.keys(layout.parts)) {
    const full = [...prefix, ...path.split(".")];
    if (!tracker.seen.has(full.join("."))) {
      issues.push({ path: full, message: "Required", code: "invalid_type" });
    }
  }
  for (const [path, collection] of Object.entries(layout.collections)) {
    const full = [...prefix, ...path.split(".")];
    const shape = tracker.seen.get(full.join("."));
    if (shape === undefined && collection.optional) continue;
    if (shape !== collection.container) {
      issues.push({
        path: full,
        message: shape === undefined ? "Required" : `expected ${collection.container}`,
        code: "invalid_type",
      });
    }
  }
  return issues;
}
