/**
 * The webhook outbox: deliveries waiting to be sent, kept in the store so a
 * restart loses none and any instance may send them. A worker leases due
 * deliveries; a lease that is not settled (the worker died) runs out and the
 * delivery becomes due again.
 */

/** One webhook request to make. */
export interface WebhookDelivery {
  id: string;
  /** `http` (the spec's §6.1 body) or `chat` (§6.2). */
  kind: "http" | "chat";
  event: "upload" | "shorten";
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
  /** Removes a delivered (or abandoned) delivery. */
  settle(id: string): Promise<void>;
  /** Records a failed attempt and when to try again. */
  reschedule(id: string, attempts: number, nextAt: number, lastError: string): Promise<void>;
  /** How many deliveries wait. */
  pending(): Promise<number>;
  /** Up to `limit` waiting deliveries, soonest due first (ties by id). */
  list(limit: number): Promise<WebhookDelivery[]>;
}
