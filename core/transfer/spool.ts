/**
 * The spool between an import's two steps: validated records are appended,
 * one JSON line each, to a temporary file per kind while the document
 * streams in; the import then reads each kind back in its own order. Memory
 * stays at one record plus a write buffer; the disk holds about the
 * document's size until {@link Spool.dispose}.
 */

const FLUSH_BYTES = 256 * 1024;

/** Temporary per-kind record files. */
export class Spool {
  private readonly files = new Map<
    string,
    { file: Deno.FsFile; buffered: string[]; size: number }
  >();
  private readonly counts = new Map<string, number>();

  private constructor(private readonly dir: string) {}

  /** A new, empty spool in a fresh directory under `parent` (the system's temp dir when `null`). */
  static async create(parent: string | null): Promise<Spool> {
    const dir = await Deno.makeTempDir({ dir: parent ?? undefined, prefix: "ferry-import-" });
    return new Spool(dir);
  }

  /** Appends one record of `kind`. */
  async add(kind: string, record: unknown): Promise<void> {
    let target = this.files.get(kind);
    if (!target) {
      const file = await Deno.open(`${this.dir}/${kind}.ndjson`, { create: true, write: true });
      target = { file, buffered: [], size: 0 };
      this.files.set(kind, target);
    }
    const line = JSON.stringify(record) + "\n";
    target.buffered.push(line);
    target.size += line.length;
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    if (target.size >= FLUSH_BYTES) await this.flushOne(target);
  }

  private async flushOne(target: { file: Deno.FsFile; buffered: string[]; size: number }) {
    const bytes = new TextEncoder().encode(target.buffered.join(""));
    target.buffered = [];
    target.size = 0;
    for (let written = 0; written < bytes.length;) {
      written += await target.file.write(bytes.subarray(written));
    }
  }

  /** Writes out what is buffered and closes the files; call before reading. */
  async seal(): Promise<void> {
    for (const target of this.files.values()) {
      await this.flushOne(target);
      target.file.close();
    }
    this.files.clear();
  }

  /** How many records of `kind` were added. */
  count(kind: string): number {
    return this.counts.get(kind) ?? 0;
  }

  /** How many records were added in all. */
  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }

  /** The records of `kind`, in the order they were added. */
  async *read<T>(kind: string): AsyncIterable<T> {
    if (!this.counts.has(kind)) return;
    const file = await Deno.open(`${this.dir}/${kind}.ndjson`);
    const lines = file.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
      new LineSplitter(),
    );
    for await (const line of lines) if (line) yield JSON.parse(line) as T;
  }

  /** Removes the spool's files. */
  async dispose(): Promise<void> {
    for (const target of this.files.values()) target.file.close();
    this.files.clear();
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

/** Splits text into lines (without their `\n`). */
class LineSplitter extends TransformStream<string, string> {
  constructor() {
    let rest = "";
    super({
      transform(chunk, controller) {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop() ?? "";
        for (const part of parts) controller.enqueue(part);
      },
      flush(controller) {
        if (rest) controller.enqueue(rest);
      },
    });
  }
}
