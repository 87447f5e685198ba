/**
 * User exports (reference §4.3): a zip of all of a user's files, built in the
 * background. The record says which datasource object holds the archive and
 * whether it is complete; the bytes themselves live in the datasource. A user
 * has one export at a time, so that exports cannot fill the disk.
 */

/** One export of a user's files. */
export interface UserExportRecord {
  id: string;
  userId: string;
  /** The datasource object of the archive. */
  path: string;
  /** How many files it holds. */
  files: number;
  /** The archive's bytes; 0 until completed. */
  size: number;
  completed: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** User export records. */
export interface UserExportStore {
  /**
   * Adds `record` unless its user has an export already: `false` then,
   * writing nothing. Atomic: of concurrent creates for one user, one wins.
   */
  create(record: UserExportRecord): Promise<boolean>;
  /** The export with this id, or `null`. */
  get(id: string): Promise<UserExportRecord | null>;
  /** Every export of a user, oldest first. */
  listByUser(userId: string): Promise<UserExportRecord[]>;
  /**
   * Marks an incomplete export complete with its `size`; `null` when it is
   * missing (deleted while it was being built) or already complete.
   */
  complete(id: string, size: number, now: Date): Promise<UserExportRecord | null>;
  /** Sets an incomplete export's `updatedAt` to `now`: its build is still under way. */
  touch(id: string, now: Date): Promise<void>;
  /** The exports last updated (touched, or completed) before `before`, oldest first. */
  listUpdatedBefore(before: Date): Promise<UserExportRecord[]>;
  /** Removes the record; returns it, or `null` when missing. */
  delete(id: string): Promise<UserExportRecord | null>;
}
