/**
 * The webhook outbox on PostgreSQL: claims lease rows with `FOR UPDATE SKIP
 * LOCKED`; a settle moves the row into `webhook_history`, trimmed to the newest
 * {@link WEBHOOK_HISTORY_SIZE}, in one transaction.
 */
import type { Sql } from "postgres";
import {
  type DeliveryOutcome,
  type FinishedDelivery,
  WEBHOOK_HISTORY_SIZE,
  type WebhookDelivery,
  type WebhookStore,
} from "../webhooks.ts";

interface Row {
  id: string;
  kind: WebhookDelivery["kind"];
  event: WebhookDelivery["event"];
  url: string;
  body: string;
  attempts: number;
  next_at: string;
  created_at: string;
  last_error: string | null;
}

const toDelivery = (r: Row): WebhookDelivery => ({
  id: r.id,
  kind: r.kind,
  event: r.event,
  url: r.url,
  body: r.body,
  attempts: r.attempts,
  nextAt: Number(r.next_at),
  createdAt: Number(r.created_at),
  lastError: r.last_error,
});

interface HistoryRow {
  id: string;
  kind: FinishedDelivery["kind"];
  event: FinishedDelivery["event"];
  url: string;
  created_at: string;
  status: FinishedDelivery["status"];
  attempts: number;
  result: string;
  finished_at: string;
}

const toFinished = (r: HistoryRow): FinishedDelivery => ({
  id: r.id,
  kind: r.kind,
  event: r.event,
  url: r.url,
  createdAt: Number(r.created_at),
  status: r.status,
  attempts: r.attempts,
  result: r.result,
  finishedAt: Number(r.finished_at),
});

/** {@link WebhookStore} on PostgreSQL. */
export class PostgresWebhooks implements WebhookStore {
  constructor(private readonly sql: Sql) {}

  async enqueue(deliveries: WebhookDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.sql`INSERT INTO webhook_outbox ${
      this.sql(deliveries.map((d) => ({
        id: d.id,
        kind: d.kind,
        event: d.event,
        url: d.url,
        body: d.body,
        attempts: d.attempts,
        next_at: d.nextAt,
        created_at: d.createdAt,
        last_error: d.lastError,
      })))
    }`;
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    const rows = await this.sql<Row[]>`
      WITH due AS (
        SELECT id, next_at FROM webhook_outbox WHERE next_at <= ${now}
        ORDER BY next_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )
      UPDATE webhook_outbox w SET next_at = ${now + leaseMs}
      FROM due WHERE w.id = due.id
      RETURNING w.id, w.kind, w.event, w.url, w.body, w.attempts, due.next_at,
        w.created_at, w.last_error`;
    return rows.map(toDelivery);
  }

  async settle(id: string, outcome: DeliveryOutcome): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`WITH gone AS (DELETE FROM webhook_outbox WHERE id = ${id} RETURNING *)
        INSERT INTO webhook_history
          (id, kind, event, url, created_at, status, attempts, result, finished_at)
        SELECT id, kind, event, url, created_at, ${outcome.status}, ${outcome.attempts},
          ${outcome.result}, ${outcome.finishedAt}
        FROM gone`;
      await tx`DELETE FROM webhook_history WHERE id IN (
        SELECT id FROM webhook_history ORDER BY finished_at DESC, id DESC
        OFFSET ${WEBHOOK_HISTORY_SIZE})`;
    });
  }

  async reschedule(id: string, attempts: number, nextAt: number, lastError: string) {
    await this.sql`UPDATE webhook_outbox
      SET attempts = ${attempts}, next_at = ${nextAt}, last_error = ${lastError}
      WHERE id = ${id}`;
  }

  async pending(): Promise<number> {
    const [row] = await this.sql<{ n: string }[]>`SELECT count(*) AS n FROM webhook_outbox`;
    return Number(row.n);
  }

  async list(limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.sql<Row[]>`SELECT id, kind, event, url, body, attempts, next_at,
        created_at, last_error
      FROM webhook_outbox ORDER BY next_at, id LIMIT ${limit}`;
    return rows.map(toDelivery);
  }

  async history(limit: number): Promise<FinishedDelivery[]> {
    const rows = await this.sql<HistoryRow[]>`SELECT id, kind, event, url, created_at, status,
        attempts, result, finished_at
      FROM webhook_history ORDER BY finished_at DESC, id DESC
      LIMIT ${Math.min(limit, WEBHOOK_HISTORY_SIZE)}`;
    return rows.map(toFinished);
  }
}
