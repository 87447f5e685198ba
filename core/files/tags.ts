/**
 * Tags (reference §4.5): each user's own, with names unique per user only,
 * so two users may both have `work` (Zipline refuses the second with a 500).
 * A caller sees and changes its own tags; an administrator may list those of
 * a user it manages. A file's tags must be its owner's.
 */
import type { UserRecord } from "../../db/users.ts";
import { UniqueError } from "../../db/errors.ts";
import type { TagRecord } from "../../db/tags.ts";
import { newId } from "../clock.ts";
import { badRequest, notFound } from "../errors.ts";
import { canManage } from "../roles.ts";
import type { Services } from "../services.ts";

/** A tag as the API shows it, with the ids of its files. */
export interface TagView {
  id: string;
  name: string;
  color: string;
  createdAt: string;
  updatedAt: string;
  files: { id: string }[];
}

/** The views of `tags`, each with its files. */
async function tagViews(s: Services, tags: TagRecord[]): Promise<TagView[]> {
  const files = await s.store.tags.filesOfTags(tags.map((t) => t.id));
  return tags.map((t) => ({
    ...tagSummary(t),
    files: (files.get(t.id) ?? []).map((id) => ({ id })),
  }));
}

/** A tag as a file's view carries it. */
export function tagSummary(t: TagRecord) {
  return {
    id: t.id,
    name: t.name,
    color: t.color,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/** The caller's tags, oldest first. */
export async function listTags(s: Services, caller: UserRecord): Promise<TagView[]> {
  return await tagViews(s, await s.store.tags.listByUser(caller.id));
}

/** The tags of a user the caller manages; 404 for any other user. */
export async function listUserTags(
  s: Services,
  caller: UserRecord,
  userId: string,
): Promise<TagView[]> {
  const user = await s.store.users.get(userId);
  if (!user || !canManage(caller.role, user.role)) throw notFound();
  return await tagViews(s, await s.store.tags.listByUser(user.id));
}

/** The caller's tag with this id; 404 otherwise. */
async function ownTag(s: Services, caller: UserRecord, id: string): Promise<TagRecord> {
  const tag = await s.store.tags.get(id);
  if (!tag || tag.userId !== caller.id) throw notFound();
  return tag;
}

/** One of the caller's tags. */
export async function getTag(s: Services, caller: UserRecord, id: string): Promise<TagView> {
  return (await tagViews(s, [await ownTag(s, caller, id)]))[0];
}

/** Creates a tag; 400 when the caller already has one of that name. */
export async function createTag(
  s: Services,
  caller: UserRecord,
  input: { name: string; color: string },
): Promise<TagView> {
  const now = new Date(s.clock.now());
  const tag: TagRecord = {
    id: newId(s.random, now.getTime()),
    ...input,
    userId: caller.id,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await s.store.tags.create(tag);
  } catch (error) {
    if (error instanceof UniqueError) throw badRequest("Cannot create tag with the same name");
    throw error;
  }
  return { ...tagSummary(tag), files: [] };
}

/** Renames or recolours one of the caller's tags. */
export async function updateTag(
  s: Services,
  caller: UserRecord,
  id: string,
  patch: { name?: string; color?: string },
): Promise<TagView> {
  const tag = await ownTag(s, caller, id);
  try {
    const updated = await s.store.tags.update(tag.id, patch, new Date(s.clock.now()));
    if (!updated) throw notFound();
    return (await tagViews(s, [updated]))[0];
  } catch (error) {
    if (error instanceof UniqueError) throw badRequest("Tag name already exists");
    throw error;
  }
}

/** Deletes one of the caller's tags; its files lose it and stay. */
export async function deleteTag(s: Services, caller: UserRecord, id: string): Promise<void> {
  const tag = await ownTag(s, caller, id);
  await s.store.tags.delete(tag.id);
}

/** Throws 400 `Invalid tag specified` unless every id is a tag of `userId`. */
export async function checkTags(s: Services, userId: string, tagIds: string[]): Promise<void> {
  for (const id of new Set(tagIds)) {
    const tag = await s.store.tags.get(id);
    if (!tag || tag.userId !== userId) throw badRequest("Invalid tag specified");
  }
}
