/// <reference lib="dom" />
/**
 * The dashboard's calls to the maintenance tasks (`/api/server/*`), typed
 * from the server's own zod schemas (type-only imports).
 */
import type { z } from "zod";
import type {
  RequerySizeBody,
  Status,
  ThumbnailsBody,
  ZeroFilesSchema,
} from "../../routes/server.ts";
import { api } from "../api.ts";

/** What a task answers. */
export type TaskStatus = z.infer<typeof Status>;
/** The files recorded with no bytes. */
export type ZeroFiles = z.infer<typeof ZeroFilesSchema>;

/** Clears the temporary files. */
export function clearTemp(): Promise<TaskStatus> {
  return api<TaskStatus>("DELETE", "/api/server/clear_temp");
}

/** The files recorded with a size of 0. */
export function listZeroFiles(): Promise<ZeroFiles> {
  return api<ZeroFiles>("GET", "/api/server/clear_zeros");
}

/** Removes the files recorded with a size of 0. */
export function clearZeroFiles(): Promise<TaskStatus> {
  return api<TaskStatus>("DELETE", "/api/server/clear_zeros");
}

/** Re-reads the recorded sizes. */
export function requerySizes(options: z.input<typeof RequerySizeBody>): Promise<TaskStatus> {
  return api<TaskStatus>("POST", "/api/server/requery_size", options);
}

/** Starts the thumbnail pass. */
export function makeThumbnails(options: z.input<typeof ThumbnailsBody>): Promise<TaskStatus> {
  return api<TaskStatus>("POST", "/api/server/thumbnails", options);
}
