/**
 * Ferry: self-hosted file sharing and URL shortening, one program.
 *
 *   main.ts [serve]                      run the server (the default)
 *   main.ts migrate                      bring the store's schema up to date
 *   main.ts user create|reset-password   manage users from the shell
 *   main.ts openapi [FILE]               write the OpenAPI document
 *   main.ts export > FILE                write the v4 export document
 *   main.ts import v3|v4 FILE [...]      import an export document (see cli/import.ts)
 *
 * and Zipline's `ziplinectl` commands (each takes `--help`):
 *
 *   main.ts list-users [-f] [-e KEY...]  the users as JSON
 *   main.ts set-user -i ID PROP VALUE    change a user's username, password, role, avatar, quota
 *   main.ts import-dir DIR [-i ID]       upload a folder's files into a user's account
 *   main.ts read-config [-f] [FILE]      print the settings, or apply a JSON file of them
 *   main.ts export-config [FILE]         the settings as a JSON file, or as environment lines
 */
import { writeOpenApi } from "./cli/openapi.ts";
import { serve } from "./cli/serve.ts";
import { closeServices, loadConfig, openServices } from "./cli/services.ts";
import { userCommand } from "./cli/user.ts";
import { exportCommand } from "./cli/export.ts";
import { importCommand } from "./cli/import.ts";
import { listUsersCommand } from "./cli/list_users.ts";
import { setUserCommand } from "./cli/set_user.ts";
import { importDirCommand } from "./cli/import_dir.ts";
import { exportConfigCommand, readConfigCommand } from "./cli/config_file.ts";
import { ConfigError } from "./cli/config.ts";
import { inWorker } from "./core/worker_pool.ts";

async function run(command: string, rest: string[]): Promise<number> {
  switch (command) {
    case "serve":
      await serve(loadConfig());
      return 0;
    case "migrate": {
      const services = await openServices(loadConfig());
      const version = await services.store.schemaVersion();
      console.log(`${services.store.kind} store is at schema version ${version}`);
      await closeServices(services);
      return 0;
    }
    case "user":
      return await userCommand(loadConfig(), rest);
    case "openapi":
      await writeOpenApi(rest[0]);
      return 0;
    case "export":
      return await exportCommand(loadConfig(), rest);
    case "import":
      return await importCommand(loadConfig(), rest);
    case "list-users":
      return await listUsersCommand(loadConfig(), rest);
    case "set-user":
      return await setUserCommand(loadConfig(), rest);
    case "import-dir":
      return await importDirCommand(loadConfig(), rest);
    case "read-config":
      return await readConfigCommand(loadConfig(), rest);
    case "export-config":
      return await exportConfigCommand(loadConfig(), rest);
    default:
      console.error(
        `unknown command ${command}; try serve, migrate, user, openapi, export, import, ` +
          "list-users, set-user, import-dir, read-config, export-config",
      );
      return 2;
  }
}

/** Runs the command line's command. */
async function main(): Promise<void> {
  const [command = "serve", ...rest] = Deno.args;
  try {
    Deno.exitCode = await run(command, rest);
  } catch (error) {
    if (badArguments(error)) {
      console.error(`${error.message}\ntry: main.ts ${command} --help`);
      Deno.exit(2);
    }
    if (!(error instanceof ConfigError)) throw error;
    console.error(`configuration error: ${error.message}`);
    Deno.exit(1);
  }
}

// Bundled into one file, this program is also the module of its workers
// (images: core/files/image_pool.ts; passwords: core/password_worker.ts):
// started as one, it only serves that worker's jobs.
if (!inWorker()) await main();

/** `true` for the command line's own parse errors (an unknown option, a missing value). */
function badArguments(error: unknown): error is TypeError {
  return error instanceof TypeError &&
    String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_");
}
