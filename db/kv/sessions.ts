/**
 * Sessions on Deno KV: one key each, and one key per session under its user
 * for listing. Both expire on their own when the session does (`expireIn`,
 * its remaining lifetime); readers check `expiresAt` themselves.
 */
import type { SessionRecord, SessionStore } from "../sessions.ts";
import { getAll } from "./helpers.ts";

const K = {
  session: (id: string) => ["session", id],
  userSessions: (userId: string) => ["session_by_user", userId],
} satisfies Record<string, (...args: string[]) => Deno.KvKey>;

/** {@link SessionStore} on Deno KV. */
export class KvSessions implements SessionStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(session: SessionRecord): Promise<void> {
    const expireIn = Math.max(1, session.expiresAt.getTime() - session.createdAt.getTime());
    await this.kv.atomic()
      .set(K.session(session.id), session, { expireIn })
      .set([...K.userSessions(session.userId), session.id], true, { expireIn })
      .commit();
  }

  async get(id: string): Promise<SessionRecord | null> {
    const session = (await this.kv.get<SessionRecord>(K.session(id))).value;
    return session && withDefaults(session);
  }

  async touch(id: string, at: Date): Promise<void> {
    const entry = await this.kv.get<SessionRecord>(K.session(id));
    if (!entry.value) return;
    const expireIn = Math.max(1, entry.value.expiresAt.getTime() - at.getTime());
    // A request that lost the race to another has nothing left to record.
    await this.kv.atomic().check(entry)
      .set(K.session(id), { ...entry.value, lastSeenAt: at }, { expireIn })
      .commit();
  }

  async listByUser(userId: string): Promise<SessionRecord[]> {
    const ids: Deno.KvKey[] = [];
    for await (const entry of this.kv.list({ prefix: K.userSessions(userId) })) {
      ids.push(K.session(entry.key.at(-1) as string));
    }
    const sessions: SessionRecord[] = [];
    for (const entry of await getAll<SessionRecord>(this.kv, ids)) {
      if (entry.value) sessions.push(withDefaults(entry.value));
    }
    return sessions.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async delete(id: string): Promise<void> {
    const session = await this.get(id);
    const op = this.kv.atomic().delete(K.session(id));
    if (session) op.delete([...K.userSessions(session.userId), id]);
    await op.commit();
  }

  async deleteByUser(userId: string, keepId?: string): Promise<void> {
    for await (const entry of this.kv.list({ prefix: K.userSessions(userId) })) {
      const id = entry.key.at(-1) as string;
      if (id !== keepId) {
        await this.kv.atomic().delete(entry.key).delete(K.session(id)).commit();
      }
    }
  }
}

/**
 * A session as an older Ferry stored it, completed: one stored before
 * sessions kept `lastSeenAt` was last seen when it began; one stored before
 * they kept their sign-in `method` has the `unknown` one, which proves nothing.
 */
function withDefaults(session: SessionRecord): SessionRecord {
  if (session.lastSeenAt && session.method) return session;
  return {
    ...session,
    lastSeenAt: session.lastSeenAt ?? session.createdAt,
    method: session.method ?? "unknown",
  };
}
