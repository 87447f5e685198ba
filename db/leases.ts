/**
 * Leases: who runs a background task's next pass, and who counts rate limits
 * in memory. Several server processes share one store; each asks for the
 * lease before a pass and only the one that gets it runs, so a task runs once
 * per interval however many run. A claim that says more than who holds it
 * (`db/rate_limit_owner.ts`: the members counting beside it, a request to
 * hand over) is a versioned record, replaced only while nobody else did.
 */

/** A record with the version a conditional write must match (`null`: none yet). */
export interface Versioned<T> {
  value: T | null;
  version: string | null;
}

/** Named leases. */
export interface LeaseStore {
  /**
   * Takes the lease `name` for `holder` at `now`, when it is free: never
   * taken, or last taken `termMs` or longer before `now`. The term is the
   * caller's, so a shorter one applies to a lease already held. Atomic: of
   * concurrent takers exactly one gets it. Returns whether this one did.
   */
  acquire(name: string, holder: string, now: Date, termMs: number): Promise<boolean>;
  /** Reads the claim record `name`. */
  readClaim<T>(name: string): Promise<Versioned<T>>;
  /** Replaces the claim record `name` if its version is still `version`; whether it did. */
  swapClaim<T>(name: string, version: string | null, claim: T): Promise<boolean>;
}
