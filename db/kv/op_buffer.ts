/**
 * An atomic operation gathered before it is committed, for writes of many
 * records in one operation (`KvFiles.deleteMany`): each record's writes are
 * made by the same functions that write one record alone, into a buffer of
 * their own; the buffer tells what it would add (writes of one key merged:
 * the last `set` or `delete` wins, `sum`s add up), so the caller takes
 * records while the operation stays within KV's limits, then applies the
 * whole to one real operation.
 */

/** A mutation of one key, as the buffer keeps it. */
type Write =
  | { kind: "set"; key: Deno.KvKey; value: unknown }
  | { kind: "delete"; key: Deno.KvKey }
  | { kind: "sum"; key: Deno.KvKey; n: bigint };

/** The checks and writes of an atomic operation, merged by key. */
export class OpBuffer {
  readonly #checks = new Map<string, Deno.AtomicCheck>();
  readonly #writes = new Map<string, Write>();

  check(...checks: Deno.AtomicCheck[]): this {
    for (const c of checks) this.#checks.set(JSON.stringify(c.key), c);
    return this;
  }

  set(key: Deno.KvKey, value: unknown): this {
    this.#writes.set(JSON.stringify(key), { kind: "set", key, value });
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#writes.set(JSON.stringify(key), { kind: "delete", key });
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    const id = JSON.stringify(key);
    const was = this.#writes.get(id);
    const total = was?.kind === "sum" ? was.n + n : n;
    this.#writes.set(id, { kind: "sum", key, n: BigInt.asUintN(64, total) });
    return this;
  }

  /** This buffer as the operation the write functions take. */
  get op(): Deno.AtomicOperation {
    return this as unknown as Deno.AtomicOperation;
  }

  /** Checks and writes the buffer holds once `other` is merged in (keys counted once). */
  sizeWith(other: OpBuffer): { checks: number; mutations: number } {
    let checks = this.#checks.size;
    for (const id of other.#checks.keys()) if (!this.#checks.has(id)) checks++;
    let mutations = this.#writes.size;
    for (const id of other.#writes.keys()) if (!this.#writes.has(id)) mutations++;
    return { checks, mutations };
  }

  /** Merges `other` in, as if its checks and writes were made here after this buffer's. */
  merge(other: OpBuffer): this {
    for (const c of other.#checks.values()) this.check(c);
    for (const w of other.#writes.values()) {
      if (w.kind === "set") this.set(w.key, w.value);
      else if (w.kind === "delete") this.delete(w.key);
      else this.sum(w.key, w.n);
    }
    return this;
  }

  /** Adds the checks and writes to `op`. */
  applyTo(op: Deno.AtomicOperation): Deno.AtomicOperation {
    op.check(...this.#checks.values());
    for (const w of this.#writes.values()) {
      if (w.kind === "set") op.set(w.key, w.value);
      else if (w.kind === "delete") op.delete(w.key);
      else if (w.n !== 0n) op.sum(w.key, w.n);
    }
    return op;
  }
}
