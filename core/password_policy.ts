/**
 * The rule every new account password follows, wherever it is set: first-run
 * setup, registration, an administrator's new user or reset, a user's own
 * change and the operator commands. At least {@link MIN_PASSWORD_LENGTH}
 * characters (counted as Unicode code points), at most
 * {@link MAX_PASSWORD_LENGTH}; kept exactly as typed, leading and trailing
 * spaces included. Hashes imported from Zipline are kept as they are: the
 * rule applies to passwords Ferry is given, not to those it inherits.
 */
import { badRequest } from "./errors.ts";

/** The fewest characters a new password may have. */
export const MIN_PASSWORD_LENGTH = 8;
/** The most characters a password may have. */
export const MAX_PASSWORD_LENGTH = 1000;
/** What a password below the minimum is told. */
export const PASSWORD_TOO_SHORT =
  `Password must be at least ${MIN_PASSWORD_LENGTH} characters long`;

/** Why `password` may not be set (too short or too long), or `null` when it may. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return PASSWORD_TOO_SHORT;
  if (length > MAX_PASSWORD_LENGTH) {
    return `Password must be at most ${MAX_PASSWORD_LENGTH} characters long`;
  }
  return null;
}

/** Throws 400 with {@link passwordProblem}'s message unless `password` may be set. */
export function checkNewPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw badRequest(problem);
}
