/** Leases on Deno KV: a checked read-then-write of `["lease", name]`. */
import type { LeaseStore } from "../leases.ts";

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
}
