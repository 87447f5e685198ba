/**
 * Leases on Deno KV: a checked read-then-write of `["lease", name]`; claim
 * records under `["lease-claim", name]`, replaced with a checked commit.
 */
import type { LeaseStore, Versioned } from "../leases.ts";
import { tryCommit } from "./helpers.ts";

interface Lease {
  holder: string;
  /** When it was taken (ms). */
  takenAt: number;
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
