/**
 * What the operator commands (`list-users`, `set-user`, `import-dir`,
 * `read-config`, `export-config`: Zipline's `ziplinectl`) share: the
 * services opened around one run, a refusal printed instead of thrown, and
 * how a user is named on the command line.
 */
import type { Config } from "./config.ts";
import { ApiError } from "../core/errors.ts";
import { stderrLogger } from "../core/log.ts";
import type { Services } from "../core/services.ts";
import type { SettingsActor } from "../core/settings/service.ts";
import type { UserRecord } from "../db/users.ts";
import { closeServices, openServices } from "./services.ts";

/**
 * Who changes the settings from the shell, as the audit trail names it: the
 * operator owns the machine, so it acts with a SUPERADMIN's authority.
 */
export const OPERATOR: SettingsActor = {
  id: "operator",
  username: "(command line)",
  role: "SUPERADMIN",
};

/** A refusal of an operator command: printed on stderr, exit code 1. */
export class Refusal extends Error {}

/**
 * Opens the services, runs `fn`, and closes them; an {@link ApiError} (the
 * same refusal the API would answer) or a {@link Refusal} is printed (a
 * validation failure as its list of issues) and gives exit code 1.
 */
export async function withServices(
  config: Config,
  fn: (s: Services) => Promise<number>,
): Promise<number> {
  const s = await openServices(config, stderrLogger);
  try {
    return await fn(s);
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof Refusal)) throw error;
    const issues = (error instanceof ApiError && error.issues) || [];
    console.error(issues.length ? "refused:" : error.message);
    for (const issue of issues) {
      console.error(`  ${issue.path.join(".") || "(document)"}: ${issue.message}`);
    }
    return 1;
  } finally {
    await closeServices(s);
  }
}

/** The user named by `id` or `username`; a {@link Refusal} when there is none. */
export async function namedUser(
  s: Services,
  named: { id?: string; username?: string },
): Promise<UserRecord> {
  const user = named.id
    ? await s.store.users.get(named.id)
    : named.username
    ? await s.store.users.getByUsername(named.username)
    : null;
  if (!user) throw new Refusal(`User not found: ${named.id ?? named.username}`);
  return user;
}

/**
 * The user named by `id` or `username`, or as Zipline's `import-dir` picks
 * one: the SUPERADMIN named `administrator`, else the oldest SUPERADMIN.
 */
export async function ownerOrSuperadmin(
  s: Services,
  named: { id?: string; username?: string },
): Promise<UserRecord> {
  if (named.id || named.username) return await namedUser(s, named);
  const superadmins = (await s.store.users.list()).filter((u) => u.role === "SUPERADMIN");
  const owner = superadmins.find((u) => u.username === "administrator") ?? superadmins[0];
  if (!owner) throw new Refusal('No superadmin found or "administrator" user.');
  return owner;
}

/** `true` when `args` ask for help (`-h`, `--help`): the command prints its usage on stdout. */
export function wantsHelp(args: string[]): boolean {
  return args.includes("-h") || args.includes("--help");
}
