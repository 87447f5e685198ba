/**
 * The webhook outbox: deliveries waiting to be sent, kept in the store so a
 * restart loses none and any instance may send them. A worker leases due
 * deliveries; a lease that is not settled (the worker died) runs out and the
 * delivery becomes due again. A settled delivery leaves a record in a short
 * history (the newest {@link WEBHOOK_HISTORY_SIZE}), so administrators see what
 * was sent.
 */

/** One webhook request to make. */
export interface WebhookDelivery {
  id: string;
  /** `http` (the spec's §6.1 body) or `chat` (§6.2). */
  kind: "http" | "chat";
  event: "upload" | "shorten" | "request-upload";
  url: string;
  /** The JSON body, exactly as it will be sent. */
  body: string;
  /** Attempts made so far. */
  attempts: number;
  /** When it is next due (ms). */
  nextAt: number;
  createdAt: number;
  lastError: string | null;
}

/** How a delivery ended: its receiver answered 2xx, or it failed for good. */
export interface DeliveryOutcome {
  status: "delivered" | "failed";
  /** Attempts made in all, the last one included. */
  attempts: number;
  /** The last answer (`HTTP 204`) or error. */
  result: string;
  /** When it ended (ms). */
  finishedAt: number;
}

/** A settled delivery as the history keeps it: the delivery without its body, and its outcome. */
export interface FinishedDelivery extends DeliveryOutcome {
  id: string;
  kind: WebhookDelivery["kind"];
  event: WebhookDelivery["event"];
  url: string;
  createdAt: number;
}

/** How many finished deliveries the history keeps; older ones are dropped. */
export const WEBHOOK_HISTORY_SIZE = 100;

/** The outbox. */
export interface WebhookStore {
  /** Adds deliveries, all or none. */
  enqueue(deliveries: WebhookDelivery[]): Promise<void>;
  /**
   * Leases up to `limit` deliveries due at `now`: each becomes due again at
   * `now + leaseMs` unless settled first. Concurrent callers never get the
   * same delivery.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<WebhookDelivery[]>;
  /**
   * Removes a delivered (or abandoned) delivery and records its outcome in
   * the history, in one atomic write; nothing when it is already gone.
   */
  settle(id: string, outcome: DeliveryOutcome): Promise<void>;
  /** Records a failed attempt and when to try again. */
  reschedule(id: string, attempts: number, nextAt: number, lastError: string): Promise<void>;
  /** How many deliveries wait. */
  pending(): Promise<number>;
  /** Up to `limit` waiting deliveries, soonest due first (ties by id). */
  list(limit: number): Promise<WebhookDelivery[]>;
  /**
   * Up to `limit` finished deliveries, the most recently finished first (ties
   * by id, descending); at most {@link WEBHOOK_HISTORY_SIZE} are kept.
   */
  history(limit: number): Promise<FinishedDelivery[]>;
}
