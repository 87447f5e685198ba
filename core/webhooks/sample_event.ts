/**
 * A test event for one webhook target, so that a SUPERADMIN can check a
 * receiver: a made-up upload or shortened URL by the caller, queued to that
 * target only, in the outbox like any other delivery (so its attempts and
 * retries show in the outbox list).
 */
import type { UserRecord } from "../../db/users.ts";
import type { WebhookDelivery } from "../../db/webhooks.ts";
import { badRequest } from "../errors.ts";
import { linkOrigin, routeLink } from "../links.ts";
import type { Services } from "../services.ts";
import { chatMessage } from "./chat.ts";
import { newDelivery } from "./outbox.ts";
import {
  requestUploadBody,
  type RequestUploadEvent,
  shortenBody,
  uploadBody,
  type UploadEvent,
} from "./payloads.ts";
import type { ChatEvent } from "./chat.ts";

/** The name of the test event's made-up file and code of its made-up URL. */
export const TEST_NAME = "ferry-webhook-test";

/** Which target: the HTTP or the chat webhook of the upload or the shorten event. */
export interface TestTarget {
  kind: WebhookDelivery["kind"];
  event: WebhookDelivery["event"];
}

/** Queues a test event to `target` and returns its delivery; 400 when the target is not set. */
export async function queueTestEvent(
  s: Services,
  caller: UserRecord,
  target: TestTarget,
  host: string,
): Promise<WebhookDelivery> {
  const now = new Date(s.clock.now());
  const origin = linkOrigin(s, undefined, host);
  const settings = s.settings.all();
  const user = { id: caller.id, username: caller.username, role: caller.role };
  const upload: UploadEvent = {
    user: { ...user, avatar: null, createdAt: caller.createdAt },
    file: {
      id: TEST_NAME,
      name: `${TEST_NAME}.txt`,
      originalName: `${TEST_NAME}.txt`,
      size: 0,
      type: "text/plain",
      createdAt: now,
      views: 0,
      favorite: false,
    },
    link: { raw: routeLink(origin, "/raw", `${TEST_NAME}.txt`) },
  };
  const shorten = {
    user,
    url: { id: TEST_NAME, code: TEST_NAME, destination: origin, views: 0, createdAt: now },
    link: { raw: routeLink(origin, settings.urlsRoute, TEST_NAME) },
  };
  const request: RequestUploadEvent = {
    ...upload,
    request: { id: TEST_NAME, name: TEST_NAME, files: 1, bytes: 0 },
    uploader: "Ferry",
  };
  const events: Record<TestTarget["event"], ChatEvent> = {
    upload: { type: "upload", event: upload },
    shorten: { type: "shorten", event: shorten },
    "request-upload": { type: "request-upload", event: request },
  };
  let url: string | null = null;
  let body: unknown = null;
  if (target.kind === "http") {
    const http = {
      upload: [settings.httpWebhookOnUpload, () => uploadBody(upload)],
      shorten: [settings.httpWebhookOnShorten, () => shortenBody(shorten)],
      "request-upload": [settings.httpWebhookOnRequestUpload, () => requestUploadBody(request)],
    } as const;
    const [to, make] = http[target.event];
    url = to;
    body = make();
  } else {
    const chat = chatMessage(settings, events[target.event]);
    url = chat?.url ?? null;
    body = chat?.body ?? null;
  }
  if (!url) throw badRequest(`No ${target.kind} webhook is set for ${target.event} events`);
  const delivery = newDelivery(s, target.kind, target.event, url, body);
  await s.store.webhooks.enqueue([delivery]);
  return delivery;
}
