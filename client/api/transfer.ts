/// <reference lib="dom" />
/**
 * The dashboard's calls to the instance export and import routes
 * (`/api/server/export`, `/api/server/import/v3|v4`), typed from the
 * server's own zod schemas (type-only imports).
 */
import type { z } from "zod";
import type {
  CountsSchema,
  ImportV3ResultSchema,
  ImportV4ResultSchema,
} from "../../routes/transfer.ts";
import { api } from "../api.ts";
import { send } from "../upload.ts";

/** How many records an export holds. */
export type ExportCounts = z.infer<typeof CountsSchema>;
/** What an import answered: v4 counts, or v3 maps of old id → new id. */
export type ImportResult =
  & Partial<z.infer<typeof ImportV4ResultSchema>>
  & Partial<Omit<z.infer<typeof ImportV3ResultSchema>, "skipped">>
  & { skipped: z.infer<typeof ImportV4ResultSchema>["skipped"] };
/** A refused import: the message and the issues (where the document is wrong). */
export type ImportFailure = { error?: string; issues?: { message: string }[] };

/** The counts of an export of this instance. */
export function exportCounts(): Promise<ExportCounts> {
  return api<ExportCounts>("GET", "/api/server/export?counts=true");
}

/** The address of the export document (`metrics`: with the metrics). */
export function exportUrl(metrics: boolean): string {
  return `/api/server/export${metrics ? "" : "?nometrics=true"}`;
}

/** Sends an import document of `version` (a JSON Blob), reporting the bytes sent. */
export async function sendImport(
  version: "3" | "4",
  document: Blob,
  onSent: (bytes: number) => void,
): Promise<{ status: number; body: ImportResult & ImportFailure }> {
  const answer = await send(
    `/api/server/import/v${version}`,
    { "content-type": "application/json" },
    document,
    onSent,
    { headers: {}, anonymous: false, signal: new AbortController().signal },
  );
  return answer as { status: number; body: ImportResult & ImportFailure };
}
