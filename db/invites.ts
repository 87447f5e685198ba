/** Invites: codes that let someone register while open registration is off. */

/** An invite as stored. */
export interface InviteRecord {
  id: string;
  /** Unique. */
  code: string;
  /** `null`: never expires. */
  expiresAt: Date | null;
  uses: number;
  /** `null`: unlimited. */
  maxUses: number | null;
  inviterId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Invites. */
export interface InviteStore {
  /** Adds an invite; throws {@link UniqueError} (`code`) on a clash. */
  create(invite: InviteRecord): Promise<void>;
  /** The invite with this id, or `null`. */
  get(id: string): Promise<InviteRecord | null>;
  /** The invite with this code, or `null`. */
  getByCode(code: string): Promise<InviteRecord | null>;
  /** Every invite, oldest first. */
  list(): Promise<InviteRecord[]>;
  /** Removes the invite; returns it, or `null`. */
  delete(id: string): Promise<InviteRecord | null>;
  /** Removes every invite a user made; returns how many. */
  deleteByInviter(inviterId: string): Promise<number>;
  /**
   * Counts one use unless the invite has expired at `now` or is used up;
   * returns the updated invite, or `null` (nothing counted). Atomic: of
   * concurrent uses racing for the last one, exactly one is counted.
   */
  use(id: string, now: Date): Promise<InviteRecord | null>;
  /** Gives back one use counted by {@link use} (a registration that then failed). */
  release(id: string): Promise<void>;
}
