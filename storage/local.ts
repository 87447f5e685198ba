/**
 * The local-disk datasource: every object is a file under one root directory.
 */

import { statfs } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import {
  type AssemblyWriter,
  type ByteRange,
  checkRange,
  concatenated,
  type Datasource,
  exactly,
  type InPlaceAssembly,
  NotFoundError,
  type PutOptions,
  reusedChunks,
  safeName,
  SizeLimitError,
  type StagedObject,
  type Staging,
  STORAGE_FOLDERS,
  StorageFullError,
  type StorageUsage,
  type StoredPart,
  UnsafeNameError,
} from "./datasource.ts";

/** Where `put` stages bodies before renaming them into place; names under it are refused. */
const STAGING = STORAGE_FOLDERS.staging;
/** The file name of a staged upload in {@link STAGING}, before the file's id. */
const STAGED_PREFIX = "upload-";
/**
 * How many bytes `get` reads from disk per chunk of a span that stops short of
 * the end of the file. A read to the end is `FsFile.readable`, which a
 * response streams from the file without a buffer per chunk in JavaScript.
 * `Deno.serve` sends a body 64 KiB at a time whatever its chunks' size, and
 * each chunk is a new buffer left to V8's collector: 1 MiB chunks raised a
 * 2 GiB range's peak RSS by 70–90 MiB for no speed (bench/results/performance.md).
 */
const READ_CHUNK = 64 * 1024;
/**
 * The buffer `put` reads a byte stream into starts at this size and doubles
 * while reads fill it, up to {@link LARGEST_WRITE_BUFFER}: small for a small
 * file (most uploads), few writes for a large one.
 */
const FIRST_WRITE_BUFFER = 8 * 1024;
const LARGEST_WRITE_BUFFER = 1024 * 1024;

/**
 * Stores objects as files under `root`. `put` writes to `<root>/.tmp/<uuid>` and
 * renames the finished file into place, so a reader never sees a partial object
 * and a failed upload leaves nothing behind; staged uploads wait in
 * `<root>/.tmp/upload-<id>`. `.tmp` itself is not a valid object name.
 * Chunked uploads keep their parts under `.tmp` too, invisible until joined,
 * and tus uploads their one file ({@link LocalDatasource.inPlace}).
 */
export class LocalDatasource implements Datasource {
  readonly kind = "local";
  readonly #root: string;

  /** Opens the datasource rooted at `root`; directories are created on first write. */
  constructor(root: string) {
    this.#root = resolve(root);
  }

  readonly staging: Staging = {
    stage: async (id, body, options = {}) =>
      await this.#writeNew(this.#stagedPath(id), body, options.limit),
    publish: async (id, name) => {
      const path = this.#path(name);
      try {
        await moveInto(this.#stagedPath(id), path);
      } catch (error) {
        rethrowUnlessMissing(error);
        throw new NotFoundError(id);
      }
    },
    discard: async (id) => {
      await Deno.remove(this.#stagedPath(id)).catch(rethrowUnlessMissing);
    },
    list: () => this.#staged(),
  };

  /**
   * A tus upload's bytes go into one file, `<root>/.tmp/parts-<handle>/whole`,
   * at their offsets, and completing it renames that file into place. An
   * upload an older Ferry began as numbered part files has them joined into
   * that file when it is next opened ({@link #joinOldParts}).
   */
  readonly inPlace: InPlaceAssembly = {
    open: async (name, handle, offset) => {
      this.#path(name);
      await this.#joinOldParts(handle);
      let file: Deno.FsFile;
      try {
        file = await Deno.open(this.#wholePath(handle), { write: true, create: true });
      } catch (error) {
        throw diskFull(error) ? new StorageFullError(error) : error;
      }
      try {
        const { size } = await file.stat();
        if (size < offset) {
          throw new Error(`assembly ${handle} holds ${size} bytes, fewer than its ${offset}`);
        }
        if (size > offset) await file.truncate(offset);
        await file.seek(offset, Deno.SeekMode.Start);
      } catch (error) {
        file.close();
        throw error;
      }
      return assemblyWriter(file);
    },
    finish: async (name, handle, size) => {
      const target = this.#path(name);
      const whole = this.#wholePath(handle);
      let file: Deno.FsFile;
      try {
        file = await Deno.open(whole, { write: true });
      } catch (error) {
        rethrowUnlessMissing(error);
        // An earlier completion moved it.
        if (await fileSize(target) === size) return;
        throw new NotFoundError(name);
      }
      try {
        const stored = (await file.stat()).size;
        if (stored < size) {
          throw new Error(`assembly ${handle} holds ${stored} bytes, fewer than its ${size}`);
        }
        if (stored > size) {
          await file.truncate(size);
          await file.syncData();
        }
      } finally {
        file.close();
      }
      await moveInto(whole, target);
      await Deno.remove(this.#partsDir(handle), { recursive: true }).catch(rethrowUnlessMissing);
    },
  };

  async put(name: string, body: ReadableStream<Uint8Array>, options: PutOptions = {}) {
    return await this.#write(this.#path(name), body, options.limit);
  }

  /**
   * Streams `body` into a staging file, then renames it to `path`; resolves
   * with the byte count. A small upload is four file-system calls (open,
   * write, sync, rename); the folders are made only when a step finds one missing.
   */
  async #write(path: string, body: ReadableStream<Uint8Array>, limit?: number): Promise<number> {
    const temporary = join(this.#root, STAGING, crypto.randomUUID());
    const bytes = await this.#writeNew(temporary, body, limit);
    try {
      await moveInto(temporary, path);
    } catch (error) {
      // Best effort: the put's own error matters more.
      await Deno.remove(temporary).catch(() => {});
      throw diskFull(error) ? new StorageFullError(error) : error;
    }
    return bytes;
  }

  /**
   * Writes `body` into the new file `path` (in the staging folder, made when
   * missing) and syncs it to disk; resolves with the byte count. On failure
   * the file is removed; a file already there is left alone (and refused).
   */
  async #writeNew(path: string, body: ReadableStream<Uint8Array>, limit?: number) {
    let file: Deno.FsFile;
    try {
      file = await inFolder(dirname(path), () => Deno.open(path, { write: true, createNew: true }));
    } catch (error) {
      await body.cancel().catch(() => {});
      throw diskFull(error) ? new StorageFullError(error) : error;
    }
    try {
      const bytes = await writeBody(file, body, limit);
      await file.syncData();
      return bytes;
    } catch (error) {
      // Best effort: the write's own error matters more.
      await Deno.remove(path).catch(() => {});
      throw diskFull(error) ? new StorageFullError(error) : error;
    } finally {
      file.close();
    }
  }

  /** Where the upload of file `id` is staged; refuses an id that is not one. */
  #stagedPath(id: string): string {
    if (!/^[0-9A-Za-z_-]{1,64}$/.test(id)) throw new UnsafeNameError(id);
    return join(this.#root, STAGING, `${STAGED_PREFIX}${id}`);
  }

  async *#staged(): AsyncIterable<StagedObject> {
    const folder = join(this.#root, STAGING);
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(folder)) {
        if (entry.isFile && entry.name.startsWith(STAGED_PREFIX)) names.push(entry.name);
      }
    } catch (error) {
      rethrowUnlessMissing(error);
    }
    for (const name of names) {
      const info = await Deno.stat(join(folder, name)).catch(() => null);
      if (info?.mtime) yield { id: name.slice(STAGED_PREFIX.length), writtenAt: info.mtime };
    }
  }

  /** Parts are files `<root>/.tmp/parts-<handle>/<number>`, joined by streaming into `put`. */
  async beginParts(name: string) {
    this.#path(name);
    const handle = crypto.randomUUID();
    await Deno.mkdir(this.#partsDir(handle), { recursive: true });
    return handle;
  }

  async putPart(
    name: string,
    handle: string,
    number: number,
    body: ReadableStream<Uint8Array>,
    size: number,
  ) {
    this.#path(name);
    await this.#write(join(this.#partsDir(handle), String(number)), exactly(body, size));
    return String(size);
  }

  async completeParts(name: string, handle: string, parts: StoredPart[]) {
    const dir = this.#partsDir(handle);
    const ordered = parts.map((p) => p.number).sort((a, b) => a - b);
    const size = await this.put(
      name,
      concatenated(
        ordered.length,
        async (i) => (await Deno.open(join(dir, String(ordered[i])))).readable,
      ),
    );
    await Deno.remove(dir, { recursive: true });
    return size;
  }

  async abortParts(name: string, handle: string) {
    this.#path(name);
    await Deno.remove(this.#partsDir(handle), { recursive: true }).catch(rethrowUnlessMissing);
  }

  /** Where the parts of the assembly `handle` are kept; refuses a handle that is not ours. */
  #partsDir(handle: string): string {
    if (!/^[0-9a-f-]{36}$/.test(handle)) throw new UnsafeNameError(handle);
    return join(this.#root, STAGING, `parts-${handle}`);
  }

  /**
   * Joins the part files `1`, `2`, … of assembly `handle` (as far as they run
   * without a gap), in order, into its in-place file, then removes every part
   * file: the layout in which tus uploads on a disk were written before they
   * were written in place. Nothing happens when the file exists already or
   * there is no part. A stop while joining leaves the parts as they were.
   */
  async #joinOldParts(handle: string): Promise<void> {
    const dir = this.#partsDir(handle);
    const whole = this.#wholePath(handle);
    if (await fileSize(whole) !== null) return;
    const numbers: number[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isFile && /^[1-9]\d*$/.test(entry.name)) numbers.push(Number(entry.name));
      }
    } catch (error) {
      rethrowUnlessMissing(error);
    }
    if (numbers.length === 0) return;
    numbers.sort((a, b) => a - b);
    const run = numbers.findIndex((n, i) => n !== i + 1);
    const joined = run === -1 ? numbers : numbers.slice(0, run);
    await this.#write(
      whole,
      concatenated(
        joined.length,
        async (i) => (await Deno.open(join(dir, String(joined[i])))).readable,
      ),
    );
    for (const n of numbers) await Deno.remove(join(dir, String(n))).catch(rethrowUnlessMissing);
  }

  /** The file an in-place assembly is written into, beside its parts. */
  #wholePath(handle: string): string {
    return join(this.#partsDir(handle), "whole");
  }

  async get(name: string, range?: ByteRange) {
    const path = this.#path(name);
    if (range) checkRange(range);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path);
    } catch (error) {
      rethrowUnlessMissing(error);
      return null;
    }
    try {
      const { isFile, size } = await file.stat();
      if (!isFile) {
        file.close();
        return null;
      }
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? Infinity, size - 1);
      if (range && start >= size) throw new RangeError(`range starts past the end of ${name}`);
      if (start > 0) await file.seek(start, Deno.SeekMode.Start);
      // To the end of the file, Deno streams the file itself when this is a response body.
      return end === size - 1 ? file.readable : readSpan(file, end - start + 1);
    } catch (error) {
      file.close();
      throw error;
    }
  }

  async read(name: string) {
    const path = this.#path(name);
    try {
      return await Deno.readFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.IsADirectory) return null;
      rethrowUnlessMissing(error);
      return null;
    }
  }

  async size(name: string) {
    return await fileSize(this.#path(name));
  }

  list(prefix: string) {
    return this.#names(prefix);
  }

  /** {@link list}'s names (a method of its own, which {@link listAfter} reads too). */
  async *#names(prefix: string) {
    if (prefix.includes("/")) throw new UnsafeNameError(prefix);
    try {
      for await (const entry of Deno.readDir(this.#root)) {
        if (entry.isFile && entry.name.startsWith(prefix)) yield entry.name;
      }
    } catch (error) {
      rethrowUnlessMissing(error);
    }
  }

  async listAfter(prefix: string, after: string | undefined, limit: number) {
    let names: string[] = [];
    const keep = () => names = names.sort(byCodePoint).slice(0, limit);
    for await (const name of this.#names(prefix)) {
      if (after !== undefined && byCodePoint(name, after) <= 0) continue;
      names.push(name);
      if (names.length >= 2 * limit) keep();
    }
    return keep();
  }

  async delete(name: string) {
    const path = this.#path(name);
    if (await fileSize(path) === null) return;
    await Deno.remove(path).catch(rethrowUnlessMissing);
  }

  async rename(from: string, to: string) {
    const source = this.#path(from);
    const target = this.#path(to);
    if (await fileSize(source) === null) throw new NotFoundError(from);
    await Deno.mkdir(dirname(target), { recursive: true });
    try {
      await Deno.rename(source, target);
    } catch (error) {
      rethrowUnlessMissing(error);
      throw new NotFoundError(from);
    }
  }

  /** The file system the root is on (its nearest existing folder, before the first write). */
  async usage(): Promise<StorageUsage> {
    let dir = this.#root;
    while (true) {
      try {
        const fs = await statfs(dir);
        const total = fs.blocks * fs.bsize;
        const used = total - fs.bfree * fs.bsize;
        return { used, total, available: fs.bavail * fs.bsize, path: this.#root };
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound) || dirname(dir) === dir) throw error;
        dir = dirname(dir);
      }
    }
  }

  close() {
    return Promise.resolve();
  }

  /** The file path for `name`, refusing unsafe names, the staging area and anything outside the root. */
  #path(name: string): string {
    safeName(name);
    if (name === STAGING || name.startsWith(`${STAGING}/`)) throw new UnsafeNameError(name);
    const path = resolve(this.#root, name);
    if (!path.startsWith(this.#root + sep)) throw new UnsafeNameError(name);
    return path;
  }
}

/** Runs `act`; when it finds something missing, makes `folder` (and its parents) and runs it again. */
/** Code-point order, a bucket's (UTF-8 bytes); UTF-16's `<` differs past U+FFFF. */
function byCodePoint(a: string, b: string): number {
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  for (;;) {
    const p = x.next();
    const q = y.next();
    if (p.done || q.done) return p.done ? (q.done ? 0 : -1) : 1;
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

async function inFolder<T>(folder: string, act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    await Deno.mkdir(folder, { recursive: true });
    return await act();
  }
}

/** Renames `from` to `path`, making `path`'s folder when it is missing. */
async function moveInto(from: string, path: string): Promise<void> {
  await inFolder(dirname(path), () => Deno.rename(from, path));
}

/** The size of the regular file at `path`, or `null` when there is none. */
async function fileSize(path: string): Promise<number | null> {
  try {
    const info = await Deno.stat(path);
    return info.isFile ? info.size : null;
  } catch (error) {
    rethrowUnlessMissing(error);
    return null;
  }
}

/**
 * Writes `body` to `file`; resolves with its length, or throws
 * {@link SizeLimitError} (cancelling the body) once it is longer than `limit`.
 * A byte stream (an upload's part) is read into one buffer used again for
 * every chunk, so that a body of any size allocates no buffer per chunk.
 */
async function writeBody(
  file: Deno.FsFile,
  body: ReadableStream<Uint8Array>,
  limit = Infinity,
): Promise<number> {
  let bytes = 0;
  // Leaving the loop early cancels the body.
  for await (const chunk of reusedChunks(body, FIRST_WRITE_BUFFER, LARGEST_WRITE_BUFFER)) {
    bytes += chunk.byteLength;
    if (bytes > limit) throw new SizeLimitError(limit);
    await writeAll(file, chunk);
  }
  return bytes;
}

/** Writes `file` from its position on; a full disk is {@link StorageFullError}. */
function assemblyWriter(file: Deno.FsFile): AssemblyWriter {
  return {
    write: async (bytes) => {
      try {
        await writeAll(file, bytes);
      } catch (error) {
        throw diskFull(error) ? new StorageFullError(error) : error;
      }
    },
    sync: () => file.syncData(),
    close: () => file.close(),
  };
}

/** Writes all of `chunk`, looping over short writes. */
async function writeAll(file: Deno.FsFile, chunk: Uint8Array): Promise<void> {
  for (let written = 0; written < chunk.byteLength;) {
    written += await file.write(chunk.subarray(written));
  }
}

/**
 * Streams `length` bytes from the current position of `file`, one chunk per
 * pull, and closes the file at the end, on error or when the reader cancels.
 */
function readSpan(file: Deno.FsFile, length: number): ReadableStream<Uint8Array> {
  let left = length;
  let open = true;
  const release = () => {
    if (open) file.close();
    open = false;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = new Uint8Array(Math.min(READ_CHUNK, left));
        const read = left > 0 ? await file.read(chunk) : null;
        if (read !== null) {
          left -= read;
          controller.enqueue(chunk.subarray(0, read));
        }
        if (read === null || left === 0) {
          release();
          controller.close();
        }
      } catch (error) {
        release();
        throw error;
      }
    },
    cancel: release,
  });
}

/** Swallows "no such file" (also a path through a non-directory); rethrows anything else. */
function rethrowUnlessMissing(error: unknown): void {
  if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return;
  throw error;
}

/** `true` for the errors of a full disk or an exhausted disk quota. */
function diskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}
