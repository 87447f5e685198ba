/**
 * `list-users [-f] [-i ID] [-e KEY...]`, as Zipline's `ziplinectl list-users`:
 * every user (or one) as a JSON array of id, username, createdAt, updatedAt
 * and role, plus the extra keys asked for from the user's detail view.
 */
import { parseArgs } from "node:util";
import type { Config } from "./config.ts";
import { detailView } from "../core/users.ts";
import { namedUser, withServices } from "./operator.ts";

const USAGE =
  `usage: list-users [-f|--format] [-i|--id ID] [-u|--username NAME] [-e|--extra KEY ...]
Prints every user (or the one named) as JSON: id, username, createdAt, updatedAt, role.
  -f, --format   indent the JSON
  -e, --extra    more keys from the user's detail (repeat, or comma-separate); "list" lists them
Password hashes, API tokens and TOTP secrets are never listed.`;

const BASE_KEYS = ["id", "username", "createdAt", "updatedAt", "role"];
/** The keys `-e` may add: the detail view's, which carries no secret. */
const EXTRA_KEYS = ["avatar", "quota", "view"];

/** Runs `list-users`; returns the exit code. */
export async function listUsersCommand(config: Config, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: "boolean", short: "f" },
      id: { type: "string", short: "i" },
      username: { type: "string", short: "u" },
      extra: { type: "string", short: "e", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  // Zipline's `-e a b` takes the words after it too.
  const extra = [...values.extra ?? [], ...values.extra ? positionals : []]
    .flatMap((e) => e.split(","))
    .map((e) => e.trim())
    .filter(Boolean);
  if (extra.includes("list")) {
    console.log("Listing possible keys:\n" + EXTRA_KEYS.join("\n"));
    return 0;
  }
  const unknown = extra.find((e) => !EXTRA_KEYS.includes(e));
  if (unknown || (positionals.length > 0 && !values.extra)) {
    console.error(unknown ? `unknown key ${unknown}; try -e list` : USAGE);
    return 2;
  }
  return await withServices(config, async (s) => {
    const users = values.id || values.username
      ? [await namedUser(s, values)]
      : await s.store.users.list();
    const keys = [...BASE_KEYS, ...extra];
    const rows = users.map((u) => {
      const detail: Record<string, unknown> = detailView(u);
      return Object.fromEntries(keys.map((k) => [k, detail[k]]));
    });
    console.log(JSON.stringify(rows, null, values.format ? 2 : 0));
    return 0;
  });
}
