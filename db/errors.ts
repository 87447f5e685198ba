/**
 * The errors every store area may throw, in a module of their own beneath
 * them all, so that an area's interface (`folders.ts`, `urls.ts`, …) and
 * `store.ts` need not import each other.
 */

/** Thrown when a write would break a uniqueness rule; `field` names it. */
export class UniqueError extends Error {
  constructor(readonly field: string) {
    super(`${field} already exists`);
    this.name = "UniqueError";
  }
}
