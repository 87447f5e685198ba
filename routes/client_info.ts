/**
 * Reads who is signing in from `x-service-client` (or Zipline's header) or
 * the user agent.
 */
import type { Context } from "hono";
import { z } from "zod";
import { clientFromUserAgent, type ClientInfo } from "../core/sessions.ts";
import { badRequest } from "../core/errors.ts";
import type { AppEnv } from "./env.ts";

const ClientHeader = z.object({
  client: z.string().max(200),
  device: z.string().max(200),
  ua: z.string().max(1000),
});

/** The client description of a login request; a malformed header is a 400. */
export function clientInfo(c: Context<AppEnv>): ClientInfo {
  const header = c.req.header("x-service-client") ?? c.req.header("x-zipline-client");
  const fallback = clientFromUserAgent((c.req.header("user-agent") ?? "").slice(0, 1000));
  if (!header) return fallback;
  try {
    const parsed = ClientHeader.safeParse(JSON.parse(header));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: answered below
  }
  throw badRequest("headers/x-service-client must be JSON {client, device, ua}");
}
