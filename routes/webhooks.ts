/**
 * `GET /api/server/webhooks`: the signing secret receivers verify with, and the
 * outbox size; `GET /api/server/webhooks/deliveries`: the waiting deliveries;
 * `GET /api/server/webhooks/history`: the recently finished ones;
 * `POST /api/server/webhooks/secret`: a fresh signing secret;
 * `POST /api/server/webhooks/test`: a test event to one target.
 */
import { z } from "@hono/zod-openapi";
import { WEBHOOK_HISTORY_SIZE } from "../db/webhooks.ts";
import {
  deliveryView,
  rotateWebhookSecret,
  webhookHistory,
  webhookOutbox,
  webhookStatus,
} from "../core/webhooks/status.ts";
import { queueTestEvent } from "../core/webhooks/sample_event.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { currentUser } from "./env.ts";

/** A delivery waiting in the outbox. */
export const DeliverySchema = z.object({
  id: z.string(),
  kind: z.enum(["http", "chat"]),
  event: z.enum(["upload", "shorten", "request-upload"]),
  url: z.string(),
  attempts: z.number().int().openapi({ description: "Failed attempts so far" }),
  nextAt: z.string().openapi({ description: "When it is next tried (ISO 8601)" }),
  createdAt: z.string(),
  lastError: z.string().nullable().openapi({ description: "Why the last attempt failed" }),
}).openapi("WebhookDelivery");

const deliveries = defineRoute({
  method: "get",
  path: "/server/webhooks/deliveries",
  auth: "super",
  tags: ["Server"],
  summary: "The deliveries waiting to be sent or retried, soonest first",
  description: "A delivery leaves the outbox once its receiver answers 2xx or its retries run " +
    "out, so these are the recent ones not yet delivered.",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(500).default(50),
    }),
  },
  responses: { 200: json(z.array(DeliverySchema), "Up to `limit` deliveries") },
});

/** A delivery that left the outbox, delivered or given up. */
export const FinishedSchema = z.object({
  id: z.string(),
  kind: z.enum(["http", "chat"]),
  event: z.enum(["upload", "shorten", "request-upload"]),
  url: z.string(),
  status: z.enum(["delivered", "failed"]).openapi({
    description:
      "`delivered`: the receiver answered 2xx; `failed`: a final error or retries ran out",
  }),
  attempts: z.number().int().openapi({ description: "Attempts made in all" }),
  result: z.string().openapi({ description: "The last answer (`HTTP 204`) or error" }),
  createdAt: z.string(),
  finishedAt: z.string().openapi({ description: "When it was delivered or given up (ISO 8601)" }),
}).openapi("WebhookFinishedDelivery");

const history = defineRoute({
  method: "get",
  path: "/server/webhooks/history",
  auth: "super",
  tags: ["Server"],
  summary: "The recently finished deliveries, the latest first",
  description: `The newest ${WEBHOOK_HISTORY_SIZE} deliveries that left the outbox, delivered ` +
    "or given up, are kept.",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(WEBHOOK_HISTORY_SIZE).default(50),
    }),
  },
  responses: { 200: json(z.array(FinishedSchema), "Up to `limit` finished deliveries") },
});

/** What a test event is sent to: a target kind and an event. */
export const WebhookTestBody = z.object({
  kind: z.enum(["http", "chat"]),
  event: z.enum(["upload", "shorten", "request-upload"]),
});

const test = defineRoute({
  method: "post",
  path: "/server/webhooks/test",
  auth: "super",
  rateLimit: { max: 1, seconds: 1 },
  tags: ["Server"],
  summary: "Queue a test event (a made-up upload or short URL by the caller) to one target",
  request: {
    body: jsonBody(WebhookTestBody),
  },
  responses: {
    200: json(DeliverySchema, "The queued delivery"),
    400: errorDoc("`No <kind> webhook is set for <event> events`"),
  },
});

/** The signing secret and the outbox's size. */
export const StatusSchema = z.object({ secret: z.string(), pending: z.number().int() })
  .openapi("WebhookStatus");

const status = defineRoute({
  method: "get",
  path: "/server/webhooks",
  auth: "super",
  tags: ["Server"],
  summary: "The webhook signing secret and how many deliveries wait",
  description: "HTTP webhooks carry `x-service-signature: sha256=<hex>`, the HMAC-SHA256 of " +
    "`<x-service-webhook-timestamp>.<body>` keyed with this secret.",
  responses: { 200: json(StatusSchema, "Webhook status") },
});

const rotate = defineRoute({
  method: "post",
  path: "/server/webhooks/secret",
  auth: "super",
  rateLimit: { max: 1, seconds: 1 },
  tags: ["Server"],
  summary: "Replace the webhook signing secret with a fresh random one",
  description: "Stored as the `httpWebhookSigningSecret` setting (the audit trail records the " +
    "change, masked); every delivery sent from now on, queued ones included, is signed with " +
    "the new secret, so receivers must be given it.",
  responses: {
    200: json(StatusSchema, "Webhook status with the new secret"),
    409: errorDoc("`The signing secret is set by SERVICE_HTTP_WEBHOOK_SIGNING_SECRET …`"),
  },
});

/** The webhook routes. */
export const webhookRoutes = newRouter()
  .openapi(status, async (c) => c.json(await webhookStatus(c.var.services), 200))
  .openapi(deliveries, async (c) => {
    return c.json(await webhookOutbox(c.var.services, c.req.valid("query").limit), 200);
  })
  .openapi(rotate, async (c) => {
    return c.json(await rotateWebhookSecret(c.var.services, currentUser(c)), 200);
  })
  .openapi(history, async (c) => {
    return c.json(await webhookHistory(c.var.services, c.req.valid("query").limit), 200);
  })
  .openapi(test, async (c) => {
    const host = new URL(c.req.url).host;
    const delivery = await queueTestEvent(
      c.var.services,
      currentUser(c),
      c.req.valid("json"),
      host,
    );
    return c.json(deliveryView(delivery), 200);
  });
