/**
 * Users: one record each, unique by id, username and token (the store refuses
 * a clash atomically, {@link UniqueError}). A user's sessions, passkeys and
 * OAuth links go with it when it is deleted.
 */

/** User roles, lowest first. */
export const ROLES = ["USER", "ADMIN", "SUPERADMIN"] as const;
/** A user role. */
export type Role = typeof ROLES[number];

/** A user's quota; `null` fields mean no limit of that kind. */
export interface QuotaRecord {
  id: string;
  filesQuota: "BY_BYTES" | "BY_FILES" | "NONE";
  maxBytes: string | null;
  maxFiles: number | null;
  maxUrls: number | null;
}

/** A user as stored. Secrets (`password`, `token`, `totpSecret`) never leave the server. */
export interface UserRecord {
  id: string;
  username: string;
  /** PHC-format argon2 hash; `null` for accounts without a password. */
  password: string | null;
  role: Role;
  avatar: string | null;
  /** The stored API token; clients hold it encrypted with the server secret. */
  token: string;
  /** Encrypted TOTP secret, `null` while TOTP is off. */
  totpSecret: string | null;
  view: Record<string, unknown>;
  quota: QuotaRecord | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields of a user that an update may change. */
export type UserPatch = Partial<
  Pick<
    UserRecord,
    "username" | "password" | "role" | "avatar" | "token" | "totpSecret" | "view" | "quota"
  >
>;

/** The users of the service. */
export interface UserStore {
  /**
   * Adds a user; throws {@link UniqueError} (`username` or `token`) on a clash.
   * Tokens are looked up by the user id they carry (`core/tokens.ts`); the
   * store only keeps them unique.
   */
  create(user: UserRecord): Promise<void>;
  /**
   * Adds `user` only if no user was ever created (first-run setup). Returns
   * `false`, writing nothing, when one already was; atomic across processes.
   */
  createFirst(user: UserRecord): Promise<boolean>;
  /** `true` once any user has been created. */
  any(): Promise<boolean>;
  /** The user with this id, or `null`. */
  get(id: string): Promise<UserRecord | null>;
  /** The user with exactly this username, or `null`. */
  getByUsername(username: string): Promise<UserRecord | null>;
  /** Every user, oldest first. */
  list(): Promise<UserRecord[]>;
  /**
   * Applies `patch` and bumps `updatedAt` to `now`; returns the new record, or
   * `null` when the user does not exist. Throws {@link UniqueError} on a clash.
   */
  update(id: string, patch: UserPatch, now: Date): Promise<UserRecord | null>;
  /** Removes the user, its sessions, its passkeys and its OAuth links; returns the removed record or `null`. */
  delete(id: string): Promise<UserRecord | null>;
}

/**
 * Users as the service reads them: a {@link UserStore} behind the serving
 * store (`serving.ts`), which adds the hot paths' cached reads.
 */
export interface ServingUserStore extends UserStore {
  /**
   * {@link UserStore.get} as answered at most a second ago (every user write
   * through this store clears it): who an authenticated request is.
   */
  getCached(id: string): Promise<UserRecord | null>;
  /**
   * {@link UserStore.list} as answered at most a second ago (every user
   * write through this store clears it): the administrators' list.
   */
  listCached(): Promise<UserRecord[]>;
}
