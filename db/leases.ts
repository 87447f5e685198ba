/**
 * Leases: who runs a background task's next pass. Several server processes
 * share one store; each asks for the lease before a pass and only the one
 * that gets it runs, so a task runs once per interval however many run.
 */

/** Named leases. */
export interface LeaseStore {
  /**
   * Takes the lease `name` for `holder` at `now`, when it is free: never
   * taken, or last taken `termMs` or longer before `now`. The term is the
   * caller's, so a shorter one applies to a lease already held. Atomic: of
   * concurrent takers exactly one gets it. Returns whether this one did.
   */
  acquire(name: string, holder: string, now: Date, termMs: number): Promise<boolean>;
}
