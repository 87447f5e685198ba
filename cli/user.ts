/** Operator commands on users, straight on the store: `user create`, `user reset-password`. */
import { parseArgs } from "node:util";
import { type Role, ROLES } from "../db/users.ts";
import type { Config } from "./config.ts";
import { ApiError } from "../core/errors.ts";
import { changeUser } from "../core/user_admin.ts";
import { createUser } from "../core/users.ts";
import { closeServices, openServices } from "./services.ts";

const USAGE = `usage:
  user create --username NAME --password PASS [--role USER|ADMIN|SUPERADMIN]
  user reset-password --username NAME --password PASS`;

/** Runs `user <action>`; returns the process exit code. */
export async function userCommand(config: Config, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      username: { type: "string" },
      password: { type: "string" },
      role: { type: "string", default: "USER" },
    },
  });
  const [action] = positionals;
  const { username, password } = values;
  const role = values.role as Role;
  if (
    !username || !password || !ROLES.includes(role) ||
    !["create", "reset-password"].includes(action)
  ) {
    console.error(USAGE);
    return 2;
  }
  const s = await openServices(config);
  try {
    if (action === "create") {
      const user = await createUser(s, { username, password, role });
      console.log(`created ${user.role} ${user.username} (${user.id})`);
      return 0;
    }
    const user = await s.store.users.getByUsername(username);
    if (!user) {
      console.error(`no user named ${username}`);
      return 1;
    }
    await changeUser(s, user, { password });
    console.log(`password of ${username} reset; its sessions were ended and its token replaced`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await closeServices(s);
  }
}
