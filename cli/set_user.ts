/**
 * `set-user -i ID|-u NAME PROPERTY VALUE`, as Zipline's `ziplinectl set-user`:
 * changes one property of a user through the administrators' update
 * (`changeUser`), validated by the same schema as `PATCH /api/users/:id`. The
 * operator owns the machine, so no role rule limits whom it may change (it
 * may reset a SUPERADMIN's password); a new password ends the user's sessions
 * and replaces its token, as the API does.
 */
import { parseArgs } from "node:util";
import type { Config } from "./config.ts";
import { badRequest } from "../core/errors.ts";
import { changeUser } from "../core/user_admin.ts";
import { toIssues } from "../routes/middleware/errors.ts";
import { UserPatchBody } from "../routes/users.ts";
import { namedUser, Refusal, withServices } from "./operator.ts";

const USAGE = `usage: set-user (-i|--id ID | -u|--username NAME) PROPERTY VALUE
PROPERTY is one of:
  username  NAME
  password  PASSWORD    (ends the user's sessions and replaces its API token)
  role      USER|ADMIN|SUPERADMIN
  avatar    DATA_URL|null
  quota     none | SIZE (50gb: by bytes) | N files (by count) | the API's quota JSON,
            e.g. '{"filesType":"BY_FILES","maxFiles":10,"maxUrls":5}'`;

const PROPERTIES = ["username", "password", "role", "avatar", "quota"];

/** A quota as typed on the command line, in the API's shape. */
function quotaValue(value: string): unknown {
  const text = value.trim();
  if (text.startsWith("{")) {
    try {
      return JSON.parse(text);
    } catch {
      throw badRequest("quota: not valid JSON");
    }
  }
  if (text.toLowerCase() === "none") return { filesType: "NONE" };
  const files = /^(\d+)\s*files?$/i.exec(text);
  if (files) return { filesType: "BY_FILES", maxFiles: Number(files[1]) };
  return { filesType: "BY_BYTES", maxBytes: text };
}

/** The value of `property` as the API's patch takes it. */
function patchValue(property: string, value: string): unknown {
  switch (property) {
    case "role":
      return value.toUpperCase();
    case "avatar":
      return value === "null" ? null : value;
    case "quota":
      return quotaValue(value);
    default:
      return value;
  }
}

/** Runs `set-user`; returns the exit code. */
export async function setUserCommand(config: Config, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      id: { type: "string", short: "i" },
      username: { type: "string", short: "u" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [property, value] = positionals;
  if (positionals.length !== 2 || !(values.id || values.username)) {
    console.error(USAGE);
    return 2;
  }
  return await withServices(config, async (s) => {
    if (!PROPERTIES.includes(property)) {
      throw new Refusal(`Unsupported field: ${property} (one of ${PROPERTIES.join(", ")})`);
    }
    const parsed = UserPatchBody.safeParse({ [property]: patchValue(property, value) });
    if (!parsed.success) throw badRequest(`invalid ${property}`, toIssues(parsed.error));
    const user = await namedUser(s, values);
    const updated = await changeUser(s, user, parsed.data);
    const shown = property === "password"
      ? "*********"
      : JSON.stringify(property === "quota" ? updated.quota : parsed.data[property as "role"]);
    console.log(`updated user(${updated.id}) -> ${property} = ${shown}`);
    return 0;
  });
}
