/**
 * Short URLs on PostgreSQL. Names (codes and vanities) are rows of
 * `url_names`, whose primary key makes the namespace unique; a create locks
 * its owner's row, so concurrent creates count the owner's URLs one at a time.
 */
import type postgres from "postgres";
import type { Sql, TransactionSql } from "postgres";
import { UniqueError } from "../errors.ts";
import { uniqueViolation } from "./unique.ts";
import type {
  DeviceDestinations,
  UrlPage,
  UrlPatch,
  UrlRecord,
  UrlStats,
  UrlStore,
  UrlView,
} from "../urls.ts";

interface UrlRow {
  id: string;
  code: string;
  vanity: string | null;
  destination: string;
  views: number;
  max_views: number | null;
  password: string | null;
  enabled: boolean;
  user_id: string | null;
  created_at: Date;
  updated_at: Date;
  expires_at: Date | null;
  device_destinations: DeviceDestinations | null;
  forward_query: boolean;
}

const toUrl = (r: UrlRow): UrlRecord => ({
  id: r.id,
  code: r.code,
  vanity: r.vanity,
  destination: r.destination,
  views: r.views,
  maxViews: r.max_views,
  password: r.password,
  enabled: r.enabled,
  userId: r.user_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  expiresAt: r.expires_at,
  deviceDestinations: r.device_destinations,
  forwardQuery: r.forward_query,
});

/** A device-destinations value as a jsonb parameter (`null` stays SQL NULL). */
const destinationsParam = (sql: Sql, d: DeviceDestinations | null | undefined) =>
  d ? sql.json(d as postgres.JSONValue) : d;

/** The row of `u`, for an INSERT through `sql`. */
const toRow = (sql: Sql) => (u: UrlRecord) => ({
  id: u.id,
  code: u.code,
  vanity: u.vanity,
  destination: u.destination,
  views: u.views,
  max_views: u.maxViews,
  password: u.password,
  enabled: u.enabled,
  user_id: u.userId,
  created_at: u.createdAt,
  updated_at: u.updatedAt,
  expires_at: u.expiresAt,
  device_destinations: destinationsParam(sql, u.deviceDestinations),
  forward_query: u.forwardQuery,
});

/** Rows one multi-row INSERT carries (at most 14 columns: well under PostgreSQL's 65535 parameters). */
const ROWS_PER_INSERT = 1000;

const COLUMNS: Record<keyof UrlPatch, string> = {
  destination: "destination",
  vanity: "vanity",
  maxViews: "max_views",
  password: "password",
  enabled: "enabled",
  expiresAt: "expires_at",
  deviceDestinations: "device_destinations",
  forwardQuery: "forward_query",
};

/** {@link UrlStore} on PostgreSQL. */
export class PostgresUrls implements UrlStore {
  constructor(private readonly sql: Sql) {}

  async addViews(id: string, count: number): Promise<void> {
    await this.sql`UPDATE urls SET views = views + ${count} WHERE id = ${id}`;
  }

  /** Claims `name` for `urlId`; throws {@link UniqueError} (`field`) when it is taken. */
  private async claim(tx: TransactionSql, name: string, urlId: string, field: string) {
    const won = await tx`INSERT INTO url_names (name, url_id) VALUES (${name}, ${urlId})
      ON CONFLICT (name) DO NOTHING RETURNING name`;
    if (won.length === 0) throw new UniqueError(field);
  }

  async create(u: UrlRecord, maxUrls: number | null): Promise<boolean> {
    return await this.sql.begin(async (tx) => {
      if (maxUrls !== null && u.userId !== null) {
        await tx`SELECT 1 FROM users WHERE id = ${u.userId} FOR UPDATE`;
        const [{ count }] = await tx<{ count: number }[]>`
          SELECT count(*)::integer AS count FROM urls WHERE user_id = ${u.userId}`;
        if (count >= maxUrls) return false;
      }
      await tx`INSERT INTO urls ${tx(toRow(this.sql)(u))}`;
      await this.claim(tx, u.code, u.id, "code");
      if (u.vanity !== null) await this.claim(tx, u.vanity, u.id, "vanity");
      return true;
    });
  }

  /** Inserts records and their names in multi-row statements, in one transaction. */
  async createMany(urls: UrlRecord[]): Promise<void> {
    const names = urls.flatMap((u) =>
      [u.code, u.vanity].flatMap((name) => name === null ? [] : [{ name, url_id: u.id }])
    );
    try {
      await this.sql.begin(async (tx) => {
        for (let i = 0; i < urls.length; i += ROWS_PER_INSERT) {
          const rows = urls.slice(i, i + ROWS_PER_INSERT).map(toRow(this.sql));
          await tx`INSERT INTO urls ${tx(rows)}`;
        }
        for (let i = 0; i < names.length; i += ROWS_PER_INSERT) {
          await tx`INSERT INTO url_names ${tx(names.slice(i, i + ROWS_PER_INSERT))}`;
        }
      });
    } catch (error) {
      throw uniqueViolation(error, "code");
    }
  }

  async takenNames(names: string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const rows = await this.sql<{ name: string }[]>`
      SELECT name FROM url_names WHERE name IN ${this.sql(names)}`;
    return new Set(rows.map((r) => r.name));
  }

  async get(id: string): Promise<UrlRecord | null> {
    const [row] = await this.sql<UrlRow[]>`SELECT * FROM urls WHERE id = ${id}`;
    return row ? toUrl(row) : null;
  }

  async getByName(name: string): Promise<UrlRecord | null> {
    const [row] = await this.sql<UrlRow[]>`
      SELECT urls.* FROM url_names JOIN urls ON urls.id = url_names.url_id
      WHERE url_names.name = ${name}`;
    return row ? toUrl(row) : null;
  }

  async listByUser(userId: string): Promise<UrlRecord[]> {
    const rows = await this.sql<UrlRow[]>`
      SELECT * FROM urls WHERE user_id = ${userId} ORDER BY created_at, id`;
    return rows.map(toUrl);
  }

  async pageByUser(userId: string, offset: number, limit: number): Promise<UrlPage> {
    const [rows, total] = await Promise.all([
      this.sql<UrlRow[]>`SELECT * FROM urls WHERE user_id = ${userId}
        ORDER BY created_at, id LIMIT ${limit} OFFSET ${offset}`,
      this.countByUser(userId),
    ]);
    return { urls: rows.map(toUrl), total };
  }

  async countByUser(userId: string): Promise<number> {
    const [{ count }] = await this.sql<{ count: number }[]>`
      SELECT count(*)::integer AS count FROM urls WHERE user_id = ${userId}`;
    return count;
  }

  recount(_userId: string | null): Promise<number> {
    return Promise.resolve(0); // counts and totals are aggregates here
  }

  async statsByUser(userId: string | null): Promise<UrlStats> {
    const owner = userId === null ? this.sql`user_id IS NULL` : this.sql`user_id = ${userId}`;
    const [stats] = await this.sql<UrlStats[]>`
      SELECT count(*)::integer AS urls, coalesce(sum(views), 0)::float8 AS views
      FROM urls WHERE ${owner}`;
    return stats;
  }

  async update(id: string, patch: UrlPatch, now: Date): Promise<UrlRecord | null> {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined) values[COLUMNS[key as keyof UrlPatch]] = value;
    }
    if (patch.deviceDestinations !== undefined) {
      values.device_destinations = destinationsParam(this.sql, patch.deviceDestinations);
    }
    return await this.sql.begin(async (tx) => {
      const [old] = await tx<UrlRow[]>`SELECT * FROM urls WHERE id = ${id} FOR UPDATE`;
      if (!old) return null;
      if (patch.vanity !== undefined && patch.vanity !== old.vanity) {
        if (old.vanity !== null) await tx`DELETE FROM url_names WHERE name = ${old.vanity}`;
        if (patch.vanity !== null) await this.claim(tx, patch.vanity, id, "vanity");
      }
      const [row] = await tx<UrlRow[]>`UPDATE urls SET ${tx(values)} WHERE id = ${id} RETURNING *`;
      return toUrl(row);
    });
  }

  async delete(id: string): Promise<UrlRecord | null> {
    const [row] = await this.sql<UrlRow[]>`DELETE FROM urls WHERE id = ${id} RETURNING *`;
    return row ? toUrl(row) : null;
  }

  async view(id: string): Promise<UrlView | null> {
    const [counted] = await this.sql<UrlRow[]>`
      UPDATE urls SET views = views + 1
      WHERE id = ${id} AND (max_views IS NULL OR views < max_views) RETURNING *`;
    if (counted) return { counted: true, url: toUrl(counted) };
    const url = await this.get(id);
    return url && { counted: false, url };
  }

  async deleteByUser(userId: string): Promise<number> {
    return (await this.sql`DELETE FROM urls WHERE user_id = ${userId}`).count;
  }

  async orphanByUser(userId: string): Promise<number> {
    return (await this.sql`UPDATE urls SET user_id = NULL WHERE user_id = ${userId}`).count;
  }

  async expiredBy(at: Date, limit: number): Promise<UrlRecord[]> {
    const rows = await this.sql<UrlRow[]>`
      SELECT * FROM urls WHERE expires_at <= ${at} ORDER BY expires_at, id LIMIT ${limit}`;
    return rows.map(toUrl);
  }

  /** Read from the partial index `urls_exhausted` (migration 035): no other URL. */
  async exhausted(limit: number): Promise<UrlRecord[]> {
    const rows = await this.sql<UrlRow[]>`SELECT * FROM urls
      WHERE max_views IS NOT NULL AND views >= max_views ORDER BY id COLLATE "C" LIMIT ${limit}`;
    return rows.map(toUrl);
  }

  async *iterate(): AsyncIterable<UrlRecord> {
    for await (const rows of this.sql<UrlRow[]>`SELECT * FROM urls`.cursor(500)) {
      yield* rows.map(toUrl);
    }
  }
}
