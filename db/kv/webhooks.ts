/**
 * The webhook outbox on Deno KV: each delivery under `["webhook", id]`, and a
 * due index `["webhook_due", nextAt, id]` that claims walk in time order.
 * Moving a delivery in the index is checked against its version, so two
 * workers never lease one delivery. Finished deliveries are kept under
 * `["webhook_history", finishedAt, id]`, trimmed to the newest
 * {@link WEBHOOK_HISTORY_SIZE} after each settle.
 */
import {
  type DeliveryOutcome,
  type FinishedDelivery,
  WEBHOOK_HISTORY_SIZE,
  type WebhookDelivery,
  type WebhookStore,
} from "../webhooks.ts";

const record = (id: string) => ["webhook", id];
const due = (d: Pick<WebhookDelivery, "id" | "nextAt">) => ["webhook_due", d.nextAt, d.id];
const finished = (f: FinishedDelivery) => ["webhook_history", f.finishedAt, f.id];

/** {@link WebhookStore} on Deno KV. */
export class KvWebhooks implements WebhookStore {
  constructor(private readonly kv: Deno.Kv) {}

  async enqueue(deliveries: WebhookDelivery[]): Promise<void> {
    const op = this.kv.atomic();
    for (const d of deliveries) op.set(record(d.id), d).set(due(d), d.id);
    const result = await op.commit();
    if (!result.ok) throw new Error("webhook deliveries were not stored");
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
    const claimed: WebhookDelivery[] = [];
    const entries = this.kv.list<string>({
      start: ["webhook_due"],
      end: ["webhook_due", now + 1],
    });
    for await (const entry of entries) {
      if (claimed.length >= limit) break;
      const current = await this.kv.get<WebhookDelivery>(record(entry.value));
      if (!current.value || current.value.nextAt !== entry.key[1]) continue;
      const leased = { ...current.value, nextAt: now + leaseMs };
      const result = await this.kv.atomic()
        .check(current)
        .delete(entry.key)
        .set(record(leased.id), leased)
        .set(due(leased), leased.id)
        .commit();
      if (result.ok) claimed.push(current.value);
    }
    return claimed;
  }

  async settle(id: string, outcome: DeliveryOutcome): Promise<void> {
    const current = await this.kv.get<WebhookDelivery>(record(id));
    if (!current.value) return;
    const { kind, event, url, createdAt } = current.value;
    const done: FinishedDelivery = { id, kind, event, url, createdAt, ...outcome };
    await this.kv.atomic()
      .check(current)
      .delete(record(id))
      .delete(due(current.value))
      .set(finished(done), done)
      .commit();
    await this.trimHistory();
  }

  /** Drops the finished deliveries beyond the newest {@link WEBHOOK_HISTORY_SIZE}. */
  private async trimHistory(): Promise<void> {
    let kept = 0;
    for await (const entry of this.kv.list({ prefix: ["webhook_history"] }, { reverse: true })) {
      if (++kept > WEBHOOK_HISTORY_SIZE) await this.kv.delete(entry.key);
    }
  }

  async reschedule(id: string, attempts: number, nextAt: number, lastError: string) {
    const current = await this.kv.get<WebhookDelivery>(record(id));
    if (!current.value) return;
    const next = { ...current.value, attempts, nextAt, lastError };
    await this.kv.atomic()
      .check(current)
      .delete(due(current.value))
      .set(record(id), next)
      .set(due(next), id)
      .commit();
  }

  async pending(): Promise<number> {
    let count = 0;
    for await (const _ of this.kv.list({ prefix: ["webhook"] })) count++;
    return count;
  }

  async list(limit: number): Promise<WebhookDelivery[]> {
    const found: WebhookDelivery[] = [];
    for await (const entry of this.kv.list<string>({ prefix: ["webhook_due"] }, { limit })) {
      const current = await this.kv.get<WebhookDelivery>(record(entry.value));
      if (current.value) found.push(current.value);
    }
    return found;
  }

  async history(limit: number): Promise<FinishedDelivery[]> {
    const entries = this.kv.list<FinishedDelivery>({ prefix: ["webhook_history"] }, {
      reverse: true,
      limit: Math.min(limit, WEBHOOK_HISTORY_SIZE),
    });
    const found: FinishedDelivery[] = [];
    for await (const entry of entries) found.push(entry.value);
    return found;
  }
}
