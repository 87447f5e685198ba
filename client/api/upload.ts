/// <reference lib="dom" />
/**
 * The upload calls' addresses and answers, typed from the server's zod
 * schemas (type-only imports of routes/); `client/upload.ts` sends them.
 */
import type { z } from "zod";
import type { UploadReplySchema } from "../../routes/files.ts";

/** What `POST /api/upload` (and the last chunk of a chunked one) answers. */
export type UploadReply = z.infer<typeof UploadReplySchema>;
/** A file the server stored. */
export type Uploaded = UploadReply["files"][number];

/** A whole upload. */
export const UPLOAD_URL = "/api/upload";
/** One chunk of a chunked upload. */
export const PARTIAL_URL = "/api/upload/partial";

/** tus uploads: created here, then sent to the `Location` answered. */
export const TUS_URL = "/api/upload/tus";

/** Where a chunked upload stands in the server's words. */
export function partialStatusUrl(identifier: string): string {
  return `${PARTIAL_URL}/${encodeURIComponent(identifier)}`;
}
