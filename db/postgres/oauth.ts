/** OAuth links on PostgreSQL: `UNIQUE (provider, oauth_id)` links an account once. */
import type { Sql } from "postgres";
import type { OauthLinkRecord, OauthProvider, OauthStore, RemoveOutcome } from "../oauth.ts";
import { UniqueError } from "../errors.ts";

interface LinkRow {
  id: string;
  user_id: string;
  provider: OauthProvider;
  username: string;
  access_token: string;
  refresh_token: string | null;
  oauth_id: string | null;
  created_at: Date;
}

const toLink = (r: LinkRow): OauthLinkRecord => ({
  id: r.id,
  userId: r.user_id,
  provider: r.provider,
  username: r.username,
  accessToken: r.access_token,
  refreshToken: r.refresh_token,
  oauthId: r.oauth_id,
  createdAt: r.created_at,
});

/** {@link OauthStore} on PostgreSQL. */
export class PostgresOauth implements OauthStore {
  constructor(private readonly sql: Sql) {}

  async create(l: OauthLinkRecord): Promise<void> {
    const won = await this.sql`INSERT INTO oauth_links ${
      this.sql({
        id: l.id,
        user_id: l.userId,
        provider: l.provider,
        username: l.username,
        access_token: l.accessToken,
        refresh_token: l.refreshToken,
        oauth_id: l.oauthId,
        created_at: l.createdAt,
      })
    } ON CONFLICT DO NOTHING RETURNING id`;
    if (won.length === 0) throw new UniqueError("oauthId");
  }

  async find(provider: OauthProvider, oauthId: string | null): Promise<OauthLinkRecord | null> {
    const [row] = await this.sql<LinkRow[]>`SELECT * FROM oauth_links
      WHERE provider = ${provider} AND oauth_id IS NOT DISTINCT FROM ${oauthId} LIMIT 1`;
    return row ? toLink(row) : null;
  }

  async listByUser(userId: string): Promise<OauthLinkRecord[]> {
    const rows = await this.sql<LinkRow[]>`
      SELECT * FROM oauth_links WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toLink);
  }

  async refresh(
    id: string,
    f: Pick<OauthLinkRecord, "username" | "accessToken" | "refreshToken">,
  ): Promise<void> {
    await this.sql`UPDATE oauth_links SET username = ${f.username},
      access_token = ${f.accessToken}, refresh_token = ${f.refreshToken} WHERE id = ${id}`;
  }

  /**
   * Locks the user's link rows first: a second remove waits for the first to
   * commit, then no longer sees the row it deleted, so it counts what is left.
   */
  async removeUnlessLast(
    userId: string,
    provider: OauthProvider,
    keepAtLeast: number,
  ): Promise<RemoveOutcome> {
    return await this.sql.begin(async (tx) => {
      const rows = await tx<{ provider: OauthProvider }[]>`SELECT provider FROM oauth_links
        WHERE user_id = ${userId} ORDER BY id FOR UPDATE`;
      const mine = rows.filter((r) => r.provider === provider).length;
      if (mine === 0) return "missing";
      if (rows.length - mine < keepAtLeast) return "last";
      await tx`DELETE FROM oauth_links WHERE user_id = ${userId} AND provider = ${provider}`;
      return "removed";
    });
  }
}
