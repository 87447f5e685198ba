/**
 * `import-dir DIRECTORY [-i ID|-u NAME] [-f FOLDER] [--format FORMAT]`, as
 * Zipline's `ziplinectl import-dir`: uploads every file of a folder into a
 * user's account through the upload pipeline (`core/files/upload.ts`), one
 * file at a time, so that the quota, the file name rules (disabled
 * extensions and types, reserved names), the webhooks and the thumbnails
 * apply as for any upload. Progress on stderr; each stored file on stdout.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Config } from "./config.ts";
import { ApiError } from "../core/errors.ts";
import { uploadTarget } from "../core/files/folders.ts";
import { NAME_FORMATS, THUMBNAIL_PREFIX } from "../core/files/naming.ts";
import { parseUploadOptions } from "../core/files/options.ts";
import { upload } from "../core/files/upload.ts";
import type { Services } from "../core/services.ts";
import type { UserRecord } from "../db/users.ts";
import { ownerOrSuperadmin, Refusal, withServices } from "./operator.ts";
import { progressPrinter } from "./progress.ts";

const USAGE = `usage: import-dir DIRECTORY [-i|--id ID | -u|--username NAME] [-f|--folder FOLDER_ID]
                  [--format ${NAME_FORMATS.join("|")}]
Uploads every file of DIRECTORY (not its subfolders) into the user's account, as uploads
are: the quota, disabled extensions and types, reserved names, webhooks and thumbnails apply.
  -i, --id, -u, --username  the owner; by default the SUPERADMIN named "administrator",
                            else the oldest SUPERADMIN
  -f, --folder              a folder of the owner's to put the files in
  --format                  "name" (the default) keeps each file's name; another format
                            generates names as uploads do, keeping the file's name as its
                            original name
Zipline's --skip-db and --skip-ds are refused: every file goes through the upload pipeline.`;

/** The files of `directory` to import, by name, thumbnails left out (as Zipline does). */
async function filesOf(directory: string): Promise<string[]> {
  const info = await Deno.stat(directory).catch(() => null);
  if (!info?.isDirectory) throw new Refusal(`Not a directory: ${directory}`);
  const names: string[] = [];
  for await (const entry of Deno.readDir(directory)) {
    if (entry.isFile && !entry.name.startsWith(THUMBNAIL_PREFIX)) names.push(entry.name);
  }
  return names.sort();
}

/** Uploads one file as its own upload; returns the stored name. */
async function uploadFile(
  s: Services,
  owner: UserRecord,
  path: string,
  filename: string,
  header: (name: string) => string | undefined,
): Promise<string> {
  const host = s.settings.get("coreDefaultDomain") ?? "localhost";
  const options = parseUploadOptions(header, s.settings.all(), s.clock.now(), s.random, host);
  const file = await Deno.open(path);
  try {
    const parts = [{ filename, contentType: "", body: file.readable }];
    const result = await upload(s, {
      user: owner,
      options,
      parts: toAsync(parts),
      host,
      settle: true,
    });
    return result.files[0].name;
  } finally {
    try {
      file.close();
    } catch {
      // already closed by reading it to the end
    }
  }
}

async function* toAsync<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}

/** Runs `import-dir`; returns the exit code. */
export async function importDirCommand(config: Config, args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      id: { type: "string", short: "i" },
      username: { type: "string", short: "u" },
      folder: { type: "string", short: "f" },
      format: { type: "string", default: "name" },
      "skip-db": { type: "boolean" },
      "skip-ds": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [directory] = positionals;
  if (positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  if (values["skip-db"] || values["skip-ds"]) {
    console.error("--skip-db and --skip-ds are not supported: every file is uploaded");
    return 2;
  }
  if (!(NAME_FORMATS as readonly string[]).includes(values.format)) {
    console.error(`unknown format ${values.format}; one of ${NAME_FORMATS.join(", ")}`);
    return 2;
  }
  return await withServices(config, async (s) => {
    const names = await filesOf(directory);
    const owner = await ownerOrSuperadmin(s, values);
    const folder = values.folder ?? null;
    await uploadTarget(s, owner, folder);
    const headers: Record<string, string | undefined> = {
      format: values.format,
      folder: values.folder,
      "original-name": values.format === "name" ? undefined : "true",
    };
    console.error(`importing ${names.length} file(s) into ${owner.username}'s account`);
    const progress = progressPrinter("files");
    let failed = 0;
    for (const [i, name] of names.entries()) {
      try {
        const stored = await uploadFile(s, owner, join(directory, name), name, (h) => headers[h]);
        console.log(`${name} -> ${stored}`);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failed++;
        console.error(`not imported: ${name}: ${error.message.replace(/^file\[0\]: /, "")}`);
      }
      progress(i + 1, names.length);
    }
    console.error(
      `Done importing ${names.length - failed} files.` + (failed ? ` ${failed} failed.` : ""),
    );
    return failed ? 1 : 0;
  });
}
