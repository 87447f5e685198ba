/**
 * Zipline v3 exports (`POST /api/server/import/v3`): users (with their OAuth
 * links), files, folders and URLs, in that order; invites, thumbnails and
 * stats are validated and ignored, as in Zipline. v3 ids are the export's
 * 32-character ids; the answer maps each imported one to its new id.
 */
import { z } from "zod";
import type { Services } from "../services.ts";
import { Arch, type SkipSummary } from "./context.ts";
import { FileV3, finishFiles, importFileV3 } from "./kinds/files.ts";
import { FolderV3, importFolderV3 } from "./kinds/folders.ts";
import { InviteV3 } from "./kinds/invites.ts";
import { ThumbnailV3 } from "./kinds/thumbnails.ts";
import { finishUrls, importUrlV3, UrlV3 } from "./kinds/urls.ts";
import { importUserV3, UserV3 } from "./kinds/users.ts";
import type { DocumentLayout } from "./read.ts";
import { eachRecord, type ImportRun, runImport } from "./run.ts";

const nullish = z.string().nullish();
const Versions = z.object({ zipline: z.string(), node: z.string(), export: z.literal("3") });
const Request = z.object({
  user: z.string(),
  date: z.string(),
  os: z.object({
    platform: z.enum(["aix", "darwin", "freebsd", "linux", "openbsd", "sunos", "win32"]),
    arch: Arch,
    cpus: z.number(),
    hostname: z.string(),
    release: z.string(),
  }),
  env: z.record(z.string(), z.string()),
});
const MapEntry = z.string();

const collection = (kind: string, schema: z.ZodType, optional = false) => ({
  kind,
  schema,
  container: "object" as const,
  optional,
});

const LAYOUT: DocumentLayout = {
  wrapper: "export3",
  options: { importFromUser: { schema: nullish, required: false } },
  parts: { versions: Versions, request: Request },
  collections: {
    user_map: collection("user_map", MapEntry),
    thumbnail_map: collection("thumbnail_map", MapEntry),
    folder_map: collection("folder_map", MapEntry),
    file_map: collection("file_map", MapEntry),
    url_map: collection("url_map", MapEntry),
    invite_map: collection("invite_map", MapEntry),
    users: collection("users", UserV3),
    files: collection("files", FileV3),
    thumbnails: collection("thumbnails", ThumbnailV3),
    folders: collection("folders", FolderV3),
    urls: collection("urls", UrlV3),
    invites: collection("invites", InviteV3),
    stats: {
      kind: "stats",
      schema: z.object({ created_at: z.string(), data: z.unknown() }),
      container: "array",
      optional: true,
    },
  },
};

/** What a v3 import validates and leaves out. */
const IGNORED = Object.keys(LAYOUT.collections).filter((k) =>
  !["users", "files", "folders", "urls"].includes(k)
);

/** What a v3 import may be told beyond the body's own `importFromUser`. */
export interface V3ImportOptions extends ImportRun {
  /** The v3 id of the user to merge into the caller (else the body's `importFromUser`). */
  importFromUser?: string | null;
}

/** The answer: old id → new id per kind, and what was skipped. */
export interface V3ImportResult {
  users: Record<string, string>;
  files: Record<string, string>;
  folders: Record<string, string>;
  urls: Record<string, string>;
  skipped: SkipSummary[];
}

/**
 * Imports a v3 document (bare, or `{export3, importFromUser}`) from `body`,
 * validated whole first, then in one transaction.
 */
export async function importV3(
  s: Services,
  body: ReadableStream<Uint8Array>,
  options: V3ImportOptions,
): Promise<V3ImportResult> {
  const { result, report } = await runImport(
    s,
    body,
    LAYOUT,
    options,
    (doc) => options.importFromUser ?? (doc.options.importFromUser as string | undefined) ?? null,
    async (ctx, spool) => {
      await eachRecord(ctx, spool, "users", importUserV3);
      await eachRecord(ctx, spool, "files", importFileV3);
      await finishFiles(ctx);
      await eachRecord(ctx, spool, "folders", importFolderV3);
      await eachRecord(ctx, spool, "urls", importUrlV3);
      await finishUrls(ctx);
      for (const kind of IGNORED) ctx.report.tick(spool.count(kind));
      return ctx.ids;
    },
  );
  return {
    users: Object.fromEntries(result.users),
    files: Object.fromEntries(result.files),
    folders: Object.fromEntries(result.folders),
    urls: Object.fromEntries(result.urls),
    skipped: report.skipped(),
  };
}
