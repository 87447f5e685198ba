/** Metrics snapshots on PostgreSQL. */
import type postgres from "postgres";
import type { Sql } from "postgres";
import type { MetricRange, MetricRecord, MetricStore } from "../metrics.ts";

type MetricRow = { id: string; created_at: Date; data: Record<string, unknown> };

/** {@link MetricStore} on PostgreSQL. */
export class PostgresMetrics implements MetricStore {
  constructor(private readonly sql: Sql) {}

  async add(metrics: MetricRecord[]): Promise<void> {
    await this.sql.begin(async (tx) => {
      for (let i = 0; i < metrics.length; i += 1000) {
        const rows = metrics.slice(i, i + 1000).map((m) => ({
          id: m.id,
          created_at: m.createdAt,
          data: tx.json(m.data as postgres.JSONValue),
        }));
        await tx`INSERT INTO metrics ${tx(rows)}`;
      }
    });
  }

  async *iterate(): AsyncIterable<MetricRecord> {
    const query = this.sql<MetricRow[]>`SELECT * FROM metrics ORDER BY created_at, id`;
    for await (const rows of query.cursor(500)) {
      for (const r of rows) yield { id: r.id, createdAt: r.created_at, data: r.data };
    }
  }

  async count(): Promise<number> {
    const [{ n }] = await this.sql<{ n: string }[]>`SELECT count(*) AS n FROM metrics`;
    return Number(n);
  }

  async *range(range: MetricRange): AsyncIterable<MetricRecord> {
    const query = this.sql<MetricRow[]>`
      SELECT * FROM metrics WHERE ${this.within(range)} ORDER BY created_at DESC, id DESC`;
    for await (const rows of query.cursor(500)) {
      for (const r of rows) yield { id: r.id, createdAt: r.created_at, data: r.data };
    }
  }

  async countRange(range: MetricRange): Promise<number> {
    const [{ n }] = await this.sql<{ n: string }[]>`
      SELECT count(*) AS n FROM metrics WHERE ${this.within(range)}`;
    return Number(n);
  }

  private within({ from, to }: MetricRange) {
    return this.sql`${from === null ? this.sql`TRUE` : this.sql`created_at >= ${from}`}
      AND ${to === null ? this.sql`TRUE` : this.sql`created_at <= ${to}`}`;
  }
}
