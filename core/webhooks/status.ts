/**
 * What SUPERADMINs see of webhooks: the signing secret, the outbox size, its
 * deliveries and the recently finished ones.
 */
import type { FinishedDelivery, WebhookDelivery } from "../../db/webhooks.ts";
import type { Services } from "../services.ts";
import { webhookSecret } from "./signature.ts";

/** The signing secret and the number of deliveries waiting. */
export async function webhookStatus(s: Services): Promise<{ secret: string; pending: number }> {
  return { secret: webhookSecret(s.secret), pending: await s.store.webhooks.pending() };
}

/** A waiting delivery as SUPERADMINs see it: where, how often tried, when next, the last error. */
export interface DeliveryView {
  id: string;
  kind: "http" | "chat";
  event: "upload" | "shorten";
  url: string;
  attempts: number;
  nextAt: string;
  createdAt: string;
  lastError: string | null;
}

/** Up to `limit` deliveries of the outbox, soonest due first (the body left out). */
export async function webhookOutbox(s: Services, limit: number): Promise<DeliveryView[]> {
  return (await s.store.webhooks.list(limit)).map(deliveryView);
}

/** `d` without its body, times as ISO strings. */
export function deliveryView(d: WebhookDelivery): DeliveryView {
  return {
    id: d.id,
    kind: d.kind,
    event: d.event,
    url: d.url,
    attempts: d.attempts,
    nextAt: new Date(d.nextAt).toISOString(),
    createdAt: new Date(d.createdAt).toISOString(),
    lastError: d.lastError,
  };
}

/** A finished delivery as SUPERADMINs see it: times as ISO strings. */
export interface FinishedView {
  id: string;
  kind: "http" | "chat";
  event: "upload" | "shorten";
  url: string;
  status: "delivered" | "failed";
  attempts: number;
  result: string;
  createdAt: string;
  finishedAt: string;
}

/** Up to `limit` of the recently finished deliveries, the latest first. */
export async function webhookHistory(s: Services, limit: number): Promise<FinishedView[]> {
  return (await s.store.webhooks.history(limit)).map((f: FinishedDelivery) => ({
    ...f,
    createdAt: new Date(f.createdAt).toISOString(),
    finishedAt: new Date(f.finishedAt).toISOString(),
  }));
}
