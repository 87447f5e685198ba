/**
 * First-run setup: the first account is a SUPERADMIN, and setup is open only
 * until a user exists. The store decides atomically, so of two concurrent
 * setups exactly one succeeds.
 */
import type { UserRecord } from "../db/users.ts";
import { forbidden } from "./errors.ts";
import type { Services } from "./services.ts";
import { buildUser } from "./users.ts";

/** `true` while no user exists. */
export async function isFirstSetup(s: Services): Promise<boolean> {
  return !(await s.store.users.any());
}

/** Creates the first user as SUPERADMIN; 403 once any user exists. */
export async function runSetup(
  s: Services,
  input: { username: string; password: string },
): Promise<UserRecord> {
  if (!(await isFirstSetup(s))) throw forbidden();
  const user = await buildUser(s, { ...input, role: "SUPERADMIN" });
  if (!(await s.store.users.createFirst(user))) throw forbidden();
  s.logger.info("first setup done", { username: user.username });
  return user;
}
