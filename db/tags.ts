/**
 * Tags and their links to files. A tag belongs to one user, and its name is
 * unique among that user's tags only (Zipline makes it unique across the
 * instance, so two users cannot both have `work`; Ferry does not follow it).
 * The store keeps the links both ways; deleting a tag unlinks it, and
 * deleting a file (`FileStore.delete`) unlinks its tags.
 */

/** A tag as stored. */
export interface TagRecord {
  id: string;
  name: string;
  /** `#rgb` or `#rrggbb`. */
  color: string;
  userId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields {@link TagStore.update} may change. */
export type TagPatch = Partial<Pick<TagRecord, "name" | "color">>;

/** One link between a tag and a file. */
export interface TagLink {
  tagId: string;
  fileId: string;
}

/** Tags and tag links. */
export interface TagStore {
  /** Adds `tag`; throws {@link UniqueError} (`name`) when its owner has a tag of that name. */
  create(tag: TagRecord): Promise<void>;
  /** The tag with this id, or `null`. */
  get(id: string): Promise<TagRecord | null>;
  /** Every tag of a user, oldest first. */
  listByUser(userId: string): Promise<TagRecord[]>;
  /** Applies `patch`, bumping `updatedAt`; `null` when missing; {@link UniqueError} on a taken name. */
  update(id: string, patch: TagPatch, now: Date): Promise<TagRecord | null>;
  /** Removes the tag and its links; returns it, or `null` when missing. */
  delete(id: string): Promise<TagRecord | null>;
  /** Removes every tag of a user and their links. */
  deleteByUser(userId: string): Promise<void>;
  /** Makes `tagIds` the file's tags, replacing the ones it had, in one atomic change. */
  setFileTags(fileId: string, tagIds: string[]): Promise<void>;
  /** The tags of each given file (files without tags are absent), each list oldest first. */
  tagsOfFiles(fileIds: string[]): Promise<Map<string, TagRecord[]>>;
  /** The ids of the files linked to each given tag (tags without files are absent). */
  filesOfTags(tagIds: string[]): Promise<Map<string, string[]>>;
  /** Every tag of the instance, read a page at a time (exports). */
  iterate(): AsyncIterable<TagRecord>;
  /** Every tag link of the instance, read a page at a time (exports). */
  iterateLinks(): AsyncIterable<TagLink>;
}
