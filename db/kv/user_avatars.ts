/**
 * A user's avatar on Deno KV: kept in the user's value when short, else cut
 * into pieces under `["user_avatar", id, n]` (`pieces.ts`) stored in the
 * same atomic operation, since an avatar may be larger than one KV value.
 */
import type { UserRecord } from "../users.ts";
import { getAll } from "./helpers.ts";
import { fromPieces, toPieces } from "./pieces.ts";

/** A user as kept: `avatarPieces` set (and `avatar` null) when its avatar is in pieces. */
export type StoredUser = UserRecord & { avatarPieces?: number };

/** The longest avatar kept in the user's own value (a KV value is at most 64 KiB). */
const INLINE_AVATAR = 16 * 1024;

const pieceKey = (id: string, n: number) => ["user_avatar", id, n];

/** The user `stored` keeps, its avatar read back; `null` stays `null`. */
export async function readUser(kv: Deno.Kv, stored: StoredUser | null): Promise<UserRecord | null> {
  if (!stored?.avatarPieces) return stored;
  const { avatarPieces, ...user } = stored;
  const keys = Array.from({ length: avatarPieces }, (_, n) => pieceKey(user.id, n));
  const pieces = (await getAll<Uint8Array>(kv, keys)).map((e) => e.value!);
  return { ...user, avatar: fromPieces(pieces) as string };
}

/**
 * Adds to `op` the writes that keep `user` at `key`, replacing `before` (as
 * stored, and its avatar as read back) when there was one: the avatar's
 * pieces are stored again only when the avatar changed.
 */
export function writeUser(
  op: Deno.AtomicOperation,
  key: Deno.KvKey,
  user: UserRecord,
  before?: { stored: StoredUser; avatar: string | null },
): void {
  const had = before?.stored.avatarPieces ?? 0;
  if (had > 0 && before?.avatar === user.avatar) {
    op.set(key, { ...user, avatar: null, avatarPieces: had } satisfies StoredUser);
    return;
  }
  const pieces = user.avatar !== null && user.avatar.length > INLINE_AVATAR
    ? toPieces(user.avatar)
    : [];
  for (let n = pieces.length; n < had; n++) op.delete(pieceKey(user.id, n));
  pieces.forEach((piece, n) => op.set(pieceKey(user.id, n), piece));
  op.set(key, pieces.length > 0 ? { ...user, avatar: null, avatarPieces: pieces.length } : user);
}

/** Adds to `op` the deletes of `stored`'s avatar pieces (the user is going). */
export function deleteAvatar(op: Deno.AtomicOperation, stored: StoredUser): void {
  for (let n = 0; n < (stored.avatarPieces ?? 0); n++) op.delete(pieceKey(stored.id, n));
}
