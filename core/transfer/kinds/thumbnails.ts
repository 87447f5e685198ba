/** Thumbnails (`data.thumbnails`; v3 `thumbnails`): validated, never imported (they are regenerated). */
import { z } from "zod";
import { IsoDate, type V4Kind } from "../context.ts";

const ThumbnailV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  path: z.string(),
  fileId: z.string(),
});

/** A v3 thumbnail. */
export const ThumbnailV3 = z.object({ name: z.string(), created_at: z.string() });

/**
 * v4 `data.thumbnails`: one per file with a thumbnail, its id the file's and
 * its `createdAt` the file's last change (Ferry keeps no separate date).
 */
export const thumbnailsV4: V4Kind<z.infer<typeof ThumbnailV4>> = {
  key: "thumbnails",
  counted: null,
  schema: ThumbnailV4,
  async *exportRecords(x) {
    for await (const f of x.s.store.files.iterate()) {
      if (f.pending || !f.thumbnail) continue;
      yield { id: f.id, createdAt: f.updatedAt.toISOString(), path: f.thumbnail, fileId: f.id };
    }
  },
};
