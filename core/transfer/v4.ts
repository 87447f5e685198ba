/**
 * The Zipline v4 export format: `POST /api/server/import/v4` and the export.
 * The kinds are listed once, in import order; the export writes them in
 * Zipline's document order. Their records live in `kinds/`.
 */
import { z } from "zod";
import type { Issue } from "../errors.ts";
import type { Services } from "../services.ts";
import { Arch, IsoDate, type SkipSummary, type V4Kind } from "./context.ts";
import { apiKeysV4 } from "./kinds/api_keys.ts";
import { privateV4, sharesV4 } from "./kinds/shares.ts";
import { filesV4 } from "./kinds/files.ts";
import { foldersV4 } from "./kinds/folders.ts";
import { invitesV4 } from "./kinds/invites.ts";
import { metricsV4 } from "./kinds/metrics.ts";
import { oauthV4 } from "./kinds/oauth.ts";
import { passkeysV4 } from "./kinds/passkeys.ts";
import { quotasV4 } from "./kinds/quotas.ts";
import { importSettings } from "./kinds/settings.ts";
import { tagsV4 } from "./kinds/tags.ts";
import { thumbnailsV4 } from "./kinds/thumbnails.ts";
import { usersV4 } from "./kinds/users.ts";
import { urlsV4 } from "./kinds/urls.ts";
import { uploadRequestsV4 } from "./kinds/upload_requests.ts";
import { visitsV4 } from "./kinds/visits.ts";
import type { DocumentLayout } from "./read.ts";
import { eachRecord, type ImportRun, runImport } from "./run.ts";

/** The kinds in import order (spec §4.6): users first, metrics last. */
const IMPORT_ORDER: V4Kind[] = [
  usersV4,
  oauthV4,
  quotasV4,
  passkeysV4,
  apiKeysV4,
  foldersV4,
  filesV4,
  tagsV4,
  urlsV4,
  invitesV4,
  metricsV4,
  thumbnailsV4,
  privateV4,
  sharesV4,
  uploadRequestsV4,
  visitsV4,
] as V4Kind[];

/** The keys of `data` in the order Zipline writes them. */
export const EXPORT_ORDER: V4Kind[] = [
  usersV4,
  passkeysV4,
  quotasV4,
  oauthV4,
  tagsV4,
  invitesV4,
  foldersV4,
  urlsV4,
  filesV4,
  thumbnailsV4,
  metricsV4,
  apiKeysV4,
  sharesV4,
  privateV4,
  uploadRequestsV4,
  visitsV4,
] as V4Kind[];

/** The counts an import answers with, in the spec's order. */
export const COUNT_KEYS = [
  "users",
  "oauthProviders",
  "quotas",
  "passkeys",
  "folders",
  "files",
  "tags",
  "urls",
  "invites",
  "metrics",
] as const;

/** The counts an import answers with: the spec's, then those of Ferry's own kinds. */
export const IMPORTED_KEYS = [
  ...COUNT_KEYS,
  "apiKeys",
  "shares",
  "private",
  "uploadRequests",
  "visits",
] as const;

const Platform = z.enum([
  "aix",
  "android",
  "darwin",
  "freebsd",
  "haiku",
  "linux",
  "openbsd",
  "sunos",
  "win32",
  "cygwin",
  "netbsd",
]);

/** `versions` of a v4 document. */
const VersionsV4 = z.object({ zipline: z.string(), node: z.string(), export: z.literal("4") });

/** `request` of a v4 document: `user` is `id:username`. */
const RequestV4 = z.object({
  user: z.string().refine((v) => /^[^:]+:[^:]+$/.test(v), "must be id:username"),
  date: IsoDate,
  os: z.object({
    platform: Platform,
    arch: Arch,
    cpus: z.number(),
    hostname: z.string(),
    release: z.string(),
  }),
  env: z.record(z.string(), z.string()),
});

const Settings = z.record(z.string(), z.unknown());

/** The whole v4 document, as one schema: the export's declared response. */
export const Export4Document = z.object({
  versions: VersionsV4,
  request: RequestV4,
  data: z.object({
    settings: Settings,
    ...Object.fromEntries(
      EXPORT_ORDER.map((
        k,
      ) => [k.key, k.optional ? z.array(k.schema).optional() : z.array(k.schema)]),
    ),
  }),
});

const Config = z.object({
  settings: z.boolean().default(false),
  mergeCurrentUser: z.string().nullish(),
});

const LAYOUT: DocumentLayout = {
  wrapper: "export4",
  options: { config: { schema: Config, required: true } },
  parts: { versions: VersionsV4, request: RequestV4, "data.settings": Settings },
  collections: Object.fromEntries(
    IMPORT_ORDER.map((
      k,
    ) => [`data.${k.key}`, {
      kind: k.key,
      schema: k.schema,
      container: "array",
      optional: k.optional,
    }]),
  ),
};

/** What a v4 import may be told beyond the document's own `config`. */
export interface V4ImportOptions extends ImportRun {
  /** Import the settings too (else the document's `config.settings`). */
  settings?: boolean;
  /** The exported id of the user to merge into the caller (else `config.mergeCurrentUser`). */
  mergeUser?: string | null;
}

/** The answer to a v4 import. */
export interface V4ImportResult {
  imported: Record<typeof IMPORTED_KEYS[number], number>;
  skipped: SkipSummary[];
  /** Present when settings were imported: the keys written and those left out. */
  settings?: { imported: string[]; invalid: Issue[] };
}

/**
 * Imports a v4 document (bare, or `{export4, config}`) from `body`: the whole
 * document is validated first, then everything is imported in one
 * transaction, in the spec's order and with its skip rules.
 */
export async function importV4(
  s: Services,
  body: ReadableStream<Uint8Array>,
  options: V4ImportOptions,
): Promise<V4ImportResult> {
  const configOf = (doc: { options: Record<string, unknown> }) =>
    (doc.options.config ?? {}) as z.infer<typeof Config>;
  const { result, report } = await runImport(
    s,
    body,
    LAYOUT,
    options,
    (doc) => options.mergeUser ?? configOf(doc).mergeCurrentUser ?? null,
    async (ctx, spool, doc) => {
      const withSettings = options.settings ?? configOf(doc).settings;
      const settings = withSettings
        ? await importSettings(ctx, doc.parts["data.settings"] as Record<string, unknown>)
        : undefined;
      for (const kind of IMPORT_ORDER) {
        await eachRecord(ctx, spool, kind.key, kind.importRecord ?? (() => Promise.resolve()));
        await kind.finish?.(ctx);
      }
      return settings;
    },
  );
  if (result) await s.settings.reload();
  return {
    imported: Object.fromEntries(
      IMPORTED_KEYS.map((k) => [k, report.imported.get(k) ?? 0]),
    ) as V4ImportResult["imported"],
    skipped: report.skipped(),
    ...(result ? { settings: result } : {}),
  };
}
