/**
 * The settings on PostgreSQL: the `settings` table, the version in `meta`
 * (its row lock orders concurrent writers), the `settings_audit` trail, and
 * a notification on a channel that every process LISTENs on.
 */
import type postgres from "postgres";
import type { Sql } from "postgres";
import type {
  SettingChange,
  SettingsAuditDraft,
  SettingsAuditQuery,
  SettingsAuditRecord,
  SettingsStore,
} from "../settings.ts";

const CHANNEL = "ferry_settings";

/** {@link SettingsStore} on PostgreSQL. */
export class PostgresSettings implements SettingsStore {
  constructor(private readonly sql: Sql) {}

  async read(): Promise<Record<string, unknown>> {
    const rows = await this.sql<{ key: string; value: unknown }[]>`SELECT key, value FROM settings`;
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async update(values: Record<string, unknown>, audit?: SettingsAuditDraft): Promise<number> {
    return await this.sql.begin(async (tx) => {
      // The row lock on the version orders concurrent writers.
      const [{ version }] = await tx<{ version: number }[]>`
        UPDATE meta SET value = to_jsonb((value #>> '{}')::integer + 1)
        WHERE key = 'settings_version' RETURNING (value #>> '{}')::integer AS version`;
      for (const [key, value] of Object.entries(values)) {
        const json = tx.json((value ?? null) as postgres.JSONValue);
        await tx`INSERT INTO settings (key, value) VALUES (${key}, ${json})
          ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`;
      }
      if (audit) {
        await tx`INSERT INTO settings_audit ${
          tx({
            id: version,
            at: audit.at,
            user_id: audit.userId,
            username: audit.username,
            changes: tx.json(audit.changes as unknown as postgres.JSONValue),
          })
        }`;
      }
      await tx`SELECT pg_notify(${CHANNEL}, ${String(version)})`;
      return version;
    });
  }

  async listAudit({ limit, before }: SettingsAuditQuery): Promise<SettingsAuditRecord[]> {
    const where = typeof before === "number"
      ? this.sql`WHERE id < ${before}`
      : before instanceof Date
      ? this.sql`WHERE at < ${before}`
      : this.sql``;
    const rows = await this.sql<
      { id: number; at: Date; user_id: string; username: string; changes: SettingChange[] }[]
    >`SELECT * FROM settings_audit ${where} ORDER BY id DESC LIMIT ${limit}`;
    return rows.map((r): SettingsAuditRecord => ({
      id: r.id,
      at: r.at,
      userId: r.user_id,
      username: r.username,
      changes: r.changes,
    }));
  }

  /** LISTEN on a dedicated connection; `onChange` also runs on each (re)connect, for missed notifications. */
  watch(onChange: () => void): () => void {
    const listening = this.sql.listen(CHANNEL, onChange, onChange);
    return () => {
      listening.then((l) => l.unlisten()).catch(() => {});
    };
  }
}
