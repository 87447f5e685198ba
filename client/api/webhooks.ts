/// <reference lib="dom" />
/**
 * The dashboard's calls to the webhook routes (`/api/server/webhooks`),
 * typed from the server's own zod schemas (type-only imports).
 */
import type { z } from "zod";
import type {
  DeliverySchema,
  FinishedSchema,
  StatusSchema,
  WebhookTestBody,
} from "../../routes/webhooks.ts";
import { api } from "../api.ts";

/** A delivery waiting in the outbox. */
export type Delivery = z.infer<typeof DeliverySchema>;
/** A delivery that left the outbox. */
export type Finished = z.infer<typeof FinishedSchema>;
/** The signing secret and how many deliveries wait. */
export type WebhookStatus = z.infer<typeof StatusSchema>;
/** A test event's target: kind and event. */
export type WebhookTest = z.input<typeof WebhookTestBody>;

/** The signing secret and the outbox's size. */
export function getWebhookStatus(): Promise<WebhookStatus> {
  return api<WebhookStatus>("GET", "/api/server/webhooks");
}

/** The deliveries waiting, soonest first. */
export function listDeliveries(): Promise<Delivery[]> {
  return api<Delivery[]>("GET", "/api/server/webhooks/deliveries");
}

/** The recently finished deliveries, latest first. */
export function listFinished(): Promise<Finished[]> {
  return api<Finished[]>("GET", "/api/server/webhooks/history");
}

/** Queues a test event to one target; the queued delivery. */
export function sendTestEvent(test: WebhookTest): Promise<Delivery> {
  return api<Delivery>("POST", "/api/server/webhooks/test", test);
}

/** Replaces the signing secret; the status with the new one. */
export function rotateSecret(): Promise<WebhookStatus> {
  return api<WebhookStatus>("POST", "/api/server/webhooks/secret");
}
