/** First-run setup: `GET /api/setup` and `POST /api/setup`. */
import { z } from "@hono/zod-openapi";
import { startSession } from "../core/sessions.ts";
import { isFirstSetup, runSetup } from "../core/setup.ts";
import { selfView } from "../core/users.ts";
import { clientInfo } from "./client_info.ts";
import { defineRoute, errorDoc, json, jsonBody, newRouter } from "./define.ts";
import { NewPassword, SelfUserSchema, Username } from "./schemas.ts";
import { setSessionCookie } from "./session_cookie.ts";

const Credentials = z.object({
  username: Username.openapi({ example: "admin" }),
  password: NewPassword,
});

const status = defineRoute({
  method: "get",
  path: "/setup",
  auth: "none",
  tags: ["Setup"],
  summary: "Whether first-run setup is still open",
  responses: {
    200: json(z.object({ firstSetup: z.boolean() }), "Setup state"),
  },
});

const setup = defineRoute({
  method: "post",
  path: "/setup",
  auth: "none",
  tags: ["Setup"],
  summary: "Create the first user (SUPERADMIN) and log it in",
  request: { body: jsonBody(Credentials) },
  responses: {
    200: json(z.object({ firstSetup: z.literal(true), user: SelfUserSchema }), "Created"),
    403: errorDoc("Setup is already done"),
  },
});

/** The setup routes. */
export const setupRoutes = newRouter()
  .openapi(status, async (c) => c.json({ firstSetup: await isFirstSetup(c.var.services) }, 200))
  .openapi(setup, async (c) => {
    const s = c.var.services;
    const user = await runSetup(s, c.req.valid("json"));
    const { secret } = await startSession(s, user, clientInfo(c), "password");
    setSessionCookie(c, secret);
    return c.json({ firstSetup: true as const, user: selfView(user) }, 200);
  });
