/**
 * Tags (`data.userTags`): skipped when the owner was not imported or has a
 * tag of that name; linked to the imported versions of their files (files
 * that were skipped are left out). A missing colour becomes `#000000`.
 */
import { z } from "zod";
import { IsoDate, type V4Kind } from "../context.ts";

const TagV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  name: z.string(),
  color: z.string().nullish(),
  files: z.array(z.string()),
  userId: z.string(),
});
type TagV4 = z.infer<typeof TagV4>;

/** v4 `data.userTags`. */
export const tagsV4: V4Kind<TagV4> = {
  key: "userTags",
  counted: "tags",
  schema: TagV4,
  async importRecord(ctx, t) {
    const userId = ctx.ids.users.get(t.userId);
    if (!userId) return ctx.report.skip("tags", t.id, "owner not imported");
    if ((await ctx.store.tags.listByUser(userId)).some((tag) => tag.name === t.name)) {
      return ctx.report.skip("tags", t.id, "the user has a tag of that name");
    }
    const id = ctx.newId();
    await ctx.store.tags.create({
      id,
      name: t.name,
      color: t.color ?? "#000000",
      userId,
      createdAt: new Date(t.createdAt),
      updatedAt: ctx.now,
    });
    const files = t.files.flatMap((old) => ctx.ids.files.get(old) ?? []);
    const current = await ctx.store.tags.tagsOfFiles(files);
    for (const fileId of files) {
      const tagIds = (current.get(fileId) ?? []).map((tag) => tag.id);
      await ctx.store.tags.setFileTags(fileId, [...tagIds, id]);
    }
    ctx.report.add("tags");
  },
  async *exportRecords(x) {
    for await (const t of x.s.store.tags.iterate()) {
      yield {
        id: t.id,
        createdAt: t.createdAt.toISOString(),
        name: t.name,
        color: t.color,
        files: (await x.s.store.tags.filesOfTags([t.id])).get(t.id) ?? [],
        userId: t.userId,
      };
    }
  },
};
