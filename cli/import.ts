/**
 * `import v3|v4 FILE [--settings] [--merge-user ID] [--as USERNAME] [--verify]`
 * and `import verify`: imports an export document straight into the store
 * (no HTTP), all or nothing, with progress on stderr and the result as JSON
 * on stdout. `--verify` (or `import verify` alone) then lists the files whose
 * bytes are missing from the datasource.
 */
import { parseArgs } from "node:util";
import type { Config } from "./config.ts";
import { ApiError } from "../core/errors.ts";
import type { Services } from "../core/services.ts";
import { importV3 } from "../core/transfer/v3.ts";
import { importV4 } from "../core/transfer/v4.ts";
import { missingFiles } from "../core/transfer/verify.ts";
import { progressPrinter } from "./progress.ts";
import { stderrLogger } from "../core/log.ts";
import { closeServices, openServices } from "./services.ts";

const USAGE = `usage:
  import v3|v4 FILE [--settings] [--merge-user ID] [--as USERNAME] [--verify]
  import verify
--merge-user merges that exported user (v4 id, or v3 id) into the --as user
(default: the oldest SUPERADMIN); --settings imports the v4 settings too.`;

/** Prints the files without bytes; returns how many. */
async function verify(s: Services): Promise<number> {
  let missing = 0;
  for await (const name of missingFiles(s)) {
    if (missing++ === 0) console.error("files whose bytes are missing from the datasource:");
    console.error(`  ${name}`);
  }
  console.error(missing ? `${missing} file(s) missing` : "every file's bytes are present");
  return missing;
}

/** Runs `import`; returns the exit code. */
export async function importCommand(config: Config, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      settings: { type: "boolean" },
      "merge-user": { type: "string" },
      as: { type: "string" },
      verify: { type: "boolean" },
    },
  });
  const [version, file] = positionals;
  if (!(version === "verify" || ((version === "v3" || version === "v4") && file))) {
    console.error(USAGE);
    return 2;
  }
  const s = await openServices(config, stderrLogger);
  try {
    if (version === "verify") return await verify(s) ? 1 : 0;
    const users = await s.store.users.list();
    const caller = values.as
      ? users.find((u) => u.username === values.as)
      : users.find((u) => u.role === "SUPERADMIN") ?? null;
    if (caller === undefined) {
      console.error(`no user named ${values.as}`);
      return 1;
    }
    const body = (await Deno.open(file)).readable;
    const run = { caller, onProgress: progressPrinter("records") };
    const result = version === "v4"
      ? await importV4(s, body, {
        ...run,
        settings: values.settings,
        mergeUser: values["merge-user"],
      })
      : await importV3(s, body, { ...run, importFromUser: values["merge-user"] });
    console.log(JSON.stringify(result, null, 2));
    return values.verify && await verify(s) ? 1 : 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    console.error(`import refused: ${error.message}`);
    for (const issue of error.issues ?? []) {
      console.error(`  ${issue.path.join(".") || "(document)"}: ${issue.message}`);
    }
    return 1;
  } finally {
    await closeServices(s);
  }
}
