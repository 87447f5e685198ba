/**
 * Leases on Deno KV: a checked read-then-write of `["lease", name]`; claim
 * records under `["lease-claim", name]`, replaced with a checked commit.
 */
import type { LeaseStore, Versioned } from "../leases.ts";

interface Lease {
  holder: string;
  /** When it was taken (ms). */
  takenAt: number;
}

/**
 * Commits `op`: its versionstamp, or `null` when a check failed or another
 * handle on the same KV file held SQLite's write lock (Deno KV throws a
 * `TypeError` "database is locked" rather than waiting); the caller reads
 * afresh and tries again in both cases.
 */
export async function tryCommit(op: Deno.AtomicOperation): Promise<string | null> {
  try {
    const result = await op.commit();
    return result.ok ? result.versionstamp : null;
  } catch (error) {
    if (!(error instanceof TypeError && error.message === "database is locked")) throw error;
    return null;
  }
}

/** {@link LeaseStore} on Deno KV. */
export class KvLeases implements LeaseStore {
  constructor(private readonly kv: Deno.Kv) {}

  async acquire(name: string, holder: string, now: Date, termMs: number): Promise<boolean> {
    const key = ["lease", name];
    const current = await this.kv.get<Lease>(key);
    if (current.value && current.value.takenAt + termMs > now.getTime()) return false;
    const result = await this.kv.atomic().check(current)
      .set(key, { holder, takenAt: now.getTime() }).commit();
    return result.ok;
  }

  async readClaim<T>(name: string): Promise<Versioned<T>> {
    const entry = await this.kv.get<T>(["lease-claim", name]);
    return { value: entry.value, version: entry.versionstamp };
  }

  async swapClaim<T>(name: string, version: string | null, claim: T): Promise<boolean> {
    const key = ["lease-claim", name];
    const op = this.kv.atomic().check({ key, versionstamp: version }).set(key, claim);
    return await tryCommit(op) !== null;
  }
}
