/** `GET /api/server/webhooks`: the signing secret receivers verify with, and the outbox size. */
import { z } from "@hono/zod-openapi";
import { webhookStatus } from "../core/webhooks/status.ts";
import { defineRoute, json, newRouter } from "./define.ts";

const status = defineRoute({
  method: "get",
  path: "/server/webhooks",
  auth: "super",
  tags: ["Server"],
  summary: "The webhook signing secret and how many deliveries wait",
  description: "HTTP webhooks carry `x-service-signature: sha256=<hex>`, the HMAC-SHA256 of " +
    "`<x-service-webhook-timestamp>.<body>` keyed with this secret.",
  responses: {
    200: json(
      z.object({ secret: z.string(), pending: z.number().int() }).openapi("WebhookStatus"),
      "Webhook status",
    ),
  },
});

/** The webhook status route. */
export const webhookRoutes = newRouter().openapi(
  status,
  async (c) => c.json(await webhookStatus(c.var.services), 200),
);
