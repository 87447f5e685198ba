/**
 * Sends what the outbox holds: due deliveries are leased (so several
 * instances share the work without sending twice), POSTed with a 10-second
 * timeout and bounded concurrency, and retried with backoff on network
 * errors, 429 and 5xx. A 4xx other than 429 is final, and so is a target
 * refused because it (or a redirect) points inside (`net/outbound.ts`).
 * Failures are logged with the target and status; a delivery that ends
 * (delivered or failed for good) leaves the outbox for the store's short
 * history, with the refusal's reason as its result.
 */
import type { WebhookDelivery } from "../../db/webhooks.ts";
import { RepeatedFailures } from "../log.ts";
import { outboundPolicy, OutboundRefused, safeFetch } from "../net/outbound.ts";
import type { Services } from "../services.ts";
import { signingSecret } from "./secret.ts";
import { signature } from "./signature.ts";

/** Delays before the 2nd, 3rd, … attempt; after the last, the delivery is dropped. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000];
/** How long one attempt may take. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How many deliveries are sent at once by one process. */
export const CONCURRENCY = 4;
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;

/** The headers of a delivery: the spec's three, and the signature for HTTP webhooks. */
export function deliveryHeaders(
  s: Services,
  d: WebhookDelivery,
  timestamp: number,
): Record<string, string> {
  if (d.kind === "chat") return { "content-type": "application/json" };
  return {
    "content-type": "application/json",
    "x-service-webhook": "true",
    "x-service-webhook-type": d.event,
    "x-service-webhook-timestamp": String(timestamp),
    "x-service-signature": signature(signingSecret(s), timestamp, d.body),
  };
}

/** What one attempt came to: the answer (`HTTP 204`) or error, and whether it is worth retrying. */
interface Attempt {
  ok: boolean;
  result: string;
  retry: boolean;
}

/** Sends one delivery. */
async function send(s: Services, d: WebhookDelivery): Promise<Attempt> {
  try {
    const response = await safeFetch(d.url, {
      method: "POST",
      headers: deliveryHeaders(s, d, Math.floor(s.clock.now() / 1000)),
      body: d.body,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    }, outboundPolicy(s));
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    const retry = response.status === 429 || response.status >= 500;
    return { ok, result: `HTTP ${response.status}`, retry };
  } catch (error) {
    const refused = error instanceof OutboundRefused;
    return { ok: false, result: (error as Error).message, retry: !refused };
  }
}

/** One process's webhook sender. */
export class WebhookWorker {
  private timer?: ReturnType<typeof setInterval>;
  private running?: Promise<number>;
  private readonly failures: RepeatedFailures;

  constructor(private readonly s: Services, private readonly intervalMs = 1000) {
    this.failures = new RepeatedFailures(s.logger);
  }

  /** Sends every due delivery, `CONCURRENCY` at a time; returns how many were attempted. */
  runOnce(): Promise<number> {
    this.running ??= this.drain().finally(() => this.running = undefined);
    return this.running;
  }

  private async drain(): Promise<number> {
    let attempted = 0;
    while (true) {
      const batch = await this.s.store.webhooks.claimDue(this.s.clock.now(), CONCURRENCY, LEASE_MS);
      if (batch.length === 0) return attempted;
      attempted += batch.length;
      await Promise.all(batch.map((d) => this.attempt(d)));
    }
  }

  private async attempt(d: WebhookDelivery): Promise<void> {
    const { ok, result, retry } = await send(this.s, d);
    const store = this.s.store.webhooks;
    const attempts = d.attempts + 1;
    const now = this.s.clock.now();
    const finished = { attempts, result, finishedAt: now };
    if (ok) return await store.settle(d.id, { status: "delivered", ...finished });
    const delay = retry ? RETRY_DELAYS_MS[attempts - 1] : undefined;
    const fields = { kind: d.kind, event: d.event, target: d.url, error: result, attempts };
    if (delay === undefined) {
      this.s.logger.error("webhook delivery failed for good", fields);
      return await store.settle(d.id, { status: "failed", ...finished });
    }
    this.s.logger.warn("webhook delivery failed; will retry", { ...fields, inMs: delay });
    await store.reschedule(d.id, attempts, now + delay, result);
  }

  /** Polls the outbox every `intervalMs` until stopped; a failing poll is logged once per outage. */
  start(): void {
    const failed = "webhook worker failed";
    this.timer ??= setInterval(() => {
      this.runOnce().then(
        () => this.failures.succeeded(failed),
        (error) => this.failures.failed(failed, error),
      );
    }, this.intervalMs);
  }

  /** Stops polling and waits for the deliveries under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
