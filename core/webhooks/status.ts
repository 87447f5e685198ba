/**
 * What SUPERADMINs see of webhooks: the signing secret (and its rotation), the
 * outbox size, its deliveries and the recently finished ones.
 */
import type { FinishedDelivery, WebhookDelivery } from "../../db/webhooks.ts";
import { ApiError } from "../errors.ts";
import type { Services } from "../services.ts";
import { envName } from "../settings/registry.ts";
import type { SettingsActor } from "../settings/service.ts";
import { newSigningSecret, SIGNING_SECRET_KEY, signingSecret } from "./secret.ts";

/** The signing secret and the number of deliveries waiting. */
export interface WebhookStatus {
  secret: string;
  pending: number;
}

/** The signing secret and the number of deliveries waiting. */
export async function webhookStatus(s: Services): Promise<WebhookStatus> {
  return { secret: signingSecret(s), pending: await s.store.webhooks.pending() };
}

/**
 * Replaces the signing secret with a fresh one, by `actor` (a SUPERADMIN),
 * through the settings service: every instance signs with it within seconds,
 * deliveries already queued included, and the audit trail records the change
 * masked. 409 when the environment sets the secret.
 */
export async function rotateWebhookSecret(
  s: Services,
  actor: SettingsActor,
): Promise<WebhookStatus> {
  if (s.settings.isTampered(SIGNING_SECRET_KEY)) {
    throw new ApiError(
      409,
      `The signing secret is set by ${envName(SIGNING_SECRET_KEY)} in the environment; ` +
        "change it there",
    );
  }
  await s.settings.update({ [SIGNING_SECRET_KEY]: newSigningSecret(s.random) }, actor);
  return await webhookStatus(s);
}

/** A waiting delivery as SUPERADMINs see it: where, how often tried, when next, the last error. */
export interface DeliveryView {
  id: string;
  kind: "http" | "chat";
  event: WebhookDelivery["event"];
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
  event: WebhookDelivery["event"];
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
