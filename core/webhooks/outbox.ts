/**
 * Turning events into deliveries. An upload or a shorten only writes the
 * deliveries its settings ask for into the store's outbox; the worker sends
 * them later, so a webhook never delays or fails the request that caused it.
 */
import type { WebhookDelivery } from "../../db/webhooks.ts";
import { newId } from "../clock.ts";
import type { Services } from "../services.ts";
import { type ChatEvent, chatMessage } from "./chat.ts";
import {
  requestUploadBody,
  type RequestUploadEvent,
  shortenBody,
  type ShortenEvent,
  uploadBody,
  type UploadEvent,
} from "./payloads.ts";

/** Queues the webhooks for a completed upload. */
export async function queueUpload(s: Services, event: UploadEvent): Promise<void> {
  await queue(
    s,
    { type: "upload", event },
    s.settings.get("httpWebhookOnUpload"),
    () => uploadBody(event),
  );
}

/** Queues the webhooks for a file received through an upload request. */
export async function queueRequestUpload(s: Services, event: RequestUploadEvent): Promise<void> {
  await queue(
    s,
    { type: "request-upload", event },
    s.settings.get("httpWebhookOnRequestUpload"),
    () => requestUploadBody(event),
  );
}

/** Queues the webhooks for a shortened URL. */
export async function queueShorten(s: Services, event: ShortenEvent): Promise<void> {
  await queue(
    s,
    { type: "shorten", event },
    s.settings.get("httpWebhookOnShorten"),
    () => shortenBody(event),
  );
}

/** A delivery of `body` to `url`, due now. */
export function newDelivery(
  s: Services,
  kind: WebhookDelivery["kind"],
  event: WebhookDelivery["event"],
  url: string,
  body: unknown,
): WebhookDelivery {
  const now = s.clock.now();
  return {
    id: newId(s.random, now),
    kind,
    event,
    url,
    body: JSON.stringify(body),
    attempts: 0,
    nextAt: now,
    createdAt: now,
    lastError: null,
  };
}

/** Queues what the settings ask for `e`; the HTTP body is built only when there is an HTTP target. */
async function queue(
  s: Services,
  e: ChatEvent,
  httpUrl: string | null,
  httpBody: () => unknown,
) {
  const delivery = (kind: WebhookDelivery["kind"], url: string, body: unknown) =>
    newDelivery(s, kind, e.type, url, body);
  const deliveries: WebhookDelivery[] = [];
  if (httpUrl) deliveries.push(delivery("http", httpUrl, httpBody()));
  const chat = chatMessage(s.settings.all(), e);
  if (chat) deliveries.push(delivery("chat", chat.url, chat.body));
  if (deliveries.length === 0) return;
  try {
    await s.store.webhooks.enqueue(deliveries);
  } catch (error) {
    s.logger.error("webhook deliveries could not be queued", { event: e.type, error });
  }
}
