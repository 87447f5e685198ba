/** Login sessions: one record each, listed by user. */

/**
 * How a session was signed in, which decides what its freshness proves
 * (`core/confirm.ts`): `password` (and the TOTP code when the account has
 * one), `passkey`, or `oauth` (a linked provider, and the TOTP code when the
 * account has one). `unknown`: a session begun before Ferry recorded it,
 * which proves nothing.
 */
export const SIGN_IN_METHODS = ["password", "passkey", "oauth", "unknown"] as const;
/** One of {@link SIGN_IN_METHODS}. */
export type SignInMethod = typeof SIGN_IN_METHODS[number];

/** A login session. The cookie holds a secret; `id` is its SHA-256, so a store leak gives no sessions. */
export interface SessionRecord {
  id: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  /** When the session last made a request, to within a few minutes (`core/sessions.ts`). */
  lastSeenAt: Date;
  /** How it was signed in. */
  method: SignInMethod;
  client: string;
  device: string;
  ua: string;
}

/** The sessions of every user. */
export interface SessionStore {
  /** Adds a session. */
  create(session: SessionRecord): Promise<void>;
  /** The session with this id, or `null` (expired ones included: the caller checks). */
  get(id: string): Promise<SessionRecord | null>;
  /** A user's sessions, oldest first; ones past `expiresAt` may be among them (the caller checks). */
  listByUser(userId: string): Promise<SessionRecord[]>;
  /** Records that the session made a request at `at` (nothing when it is gone). */
  touch(id: string, at: Date): Promise<void>;
  /** Removes one session. */
  delete(id: string): Promise<void>;
  /** Removes every session of the user except `keepId`. */
  deleteByUser(userId: string, keepId?: string): Promise<void>;
}
