/** PostgreSQL's unique violations as the stores' {@link UniqueError}. */
import { UniqueError } from "../errors.ts";

/** The SQLSTATE of a unique violation. */
const UNIQUE_VIOLATION = "23505";

/**
 * `error` as a {@link UniqueError} when PostgreSQL refused a write because a
 * unique value was taken, naming the field `field` gives (a fixed name, or
 * one chosen from the violated constraint's name); any other error unchanged.
 * Use it as `throw uniqueViolation(error, "name")`.
 */
export function uniqueViolation(
  error: unknown,
  field: string | ((constraint: string | undefined) => string),
): unknown {
  const e = error as { code?: string; constraint_name?: string } | null | undefined;
  if (e?.code !== UNIQUE_VIOLATION) return error;
  return new UniqueError(typeof field === "string" ? field : field(e.constraint_name));
}
