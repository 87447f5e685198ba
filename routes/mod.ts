/**
 * The application: every API area mounted in one place, the shared
 * middleware, the error handler and the OpenAPI document.
 */
import { API_KEY_SCOPES } from "../core/api_keys.ts";
import type { Services } from "../core/services.ts";
import { newRouter } from "./define.ts";
import { fastPublic } from "./fast_public.ts";
import { fastHealthcheck } from "./fast_health.ts";
import { fastRaw } from "./fast_raw.ts";
import { onError, onNotFound } from "./middleware/errors.ts";
import { appWide } from "./middleware/app_wide.ts";
import { finishing } from "./front_door.ts";
import { docsRoutes } from "./docs.ts";
import { healthRoutes } from "./health.ts";
import { setupRoutes } from "./setup.ts";
import { settingsRoutes } from "./settings.ts";
import { settingsRegistryRoutes } from "./settings_registry.ts";
import { authRoutes } from "./auth.ts";
import { oauthRoutes } from "./oauth.ts";
import { userRoutes } from "./user.ts";
import { apiKeyRoutes } from "./api_keys.ts";
import { uploadRequestRoutes } from "./upload_requests.ts";
import { mfaRoutes } from "./mfa.ts";
import { sharedLinkRoutes } from "./shared_links.ts";
import { webRoutes } from "./web/mod.tsx";
import { userExportRoutes } from "./user_export.ts";
import { usersRoutes } from "./users.ts";
import { fileRoutes } from "./files.ts";
import { userFileRoutes } from "./user_files.ts";
import { chunkedRoutes } from "./chunked.ts";
import { tusRoutes } from "./tus.ts";
import { shareRoutes } from "./shares.ts";
import { folderRoutes } from "./folders.ts";
import { tagRoutes } from "./tags.ts";
import { urlRoutes } from "./urls.ts";
import { inviteRoutes } from "./invites.ts";
import { publicRoutes } from "./redirects.ts";
import { webhookRoutes } from "./webhooks.ts";
import { transferRoutes } from "./transfer.ts";
import { statsRoutes } from "./stats.ts";
import { visitRoutes } from "./visits.ts";
import { serverRoutes } from "./server.ts";

/** Options for {@link createApp}. */
export interface AppOptions {
  /** Check every response against its declared schema (tests only). */
  checkResponses?: boolean;
  /** Log each request (off in tests). */
  logRequests?: boolean;
}

/** Builds the Hono app over `services`. */
export function createApp(services: Services, options: AppOptions = {}) {
  const app = newRouter();
  app.use(appWide(services, {
    checkResponses: options.checkResponses ?? false,
    finish: finishing(services, options.logRequests ?? false),
  }));

  app.route("/api", setupRoutes);
  app.route("/api", settingsRegistryRoutes);
  app.route("/api", settingsRoutes);
  app.route("/api", healthRoutes);
  app.route("/api", docsRoutes);
  app.route("/api", authRoutes);
  app.route("/api", oauthRoutes);
  app.route("/api", userRoutes);
  app.route("/api", apiKeyRoutes);
  app.route("/api", userExportRoutes);
  app.route("/api", mfaRoutes);
  app.route("/", webRoutes);
  app.route("/", sharedLinkRoutes);
  app.route("/api", usersRoutes);
  app.route("/api", userFileRoutes); // before fileRoutes: `/user/files/incomplete` is no `{id}`
  app.route("/api", fileRoutes);
  app.route("/api", chunkedRoutes);
  app.route("/api", tusRoutes);
  app.route("/api", uploadRequestRoutes);
  app.route("/api", folderRoutes);
  app.route("/api", shareRoutes);
  app.route("/api", tagRoutes);
  app.route("/api", urlRoutes);
  app.route("/api", inviteRoutes);
  app.route("/api", webhookRoutes);
  app.route("/api", transferRoutes);
  app.route("/api", statsRoutes);
  app.route("/api", visitRoutes);
  app.route("/api", serverRoutes);

  app.openAPIRegistry.registerComponent("securitySchemes", "token", {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description: "The API token from GET /api/user/token, as the whole header value.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", apiKeySecurityScheme());
  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: "service_session",
    description: "The session cookie set by POST /api/auth/login.",
  });
  app.get("/api/openapi.json", (c) => c.json(openApiDocument(app, services.build.version)));
  app.route("/", publicRoutes);

  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}

/**
 * What the server serves: the public fast paths (`fast_public.ts` for
 * redirects, `fast_health.ts` for the healthcheck, `fast_raw.ts` for small
 * files), and the app for every request they leave; all finish their
 * answers alike (`front_door.ts`).
 */
export function createHandler(services: Services, options: AppOptions = {}) {
  const app = createApp(services, options);
  const finish = finishing(services, options.logRequests ?? false);
  const fast = fastPublic(services, finish);
  const health = fastHealthcheck(services, finish);
  const raw = fastRaw(services, finish, app.fetch);
  const fetch = (request: Request, info?: Deno.ServeHandlerInfo<Deno.NetAddr>) =>
    fast(request, info) ?? health(request) ?? raw(request, info) ?? app.fetch(request, info);
  return { app, fetch };
}

/**
 * The API keys' security scheme, listing every scope: an operation a key may
 * call names the scope it needs in its security (`{apiKey: [scope]}`) and in
 * `x-api-key-scope`; an operation without it refuses keys.
 */
function apiKeySecurityScheme() {
  const scopes = Object.entries(API_KEY_SCOPES).map(([name, s]) => `- \`${name}\`: ${s.allows}`);
  return {
    type: "apiKey" as const,
    in: "header" as const,
    name: "Authorization",
    description: "A scoped API key (`fk_…`, from POST /api/user/keys), as the whole header " +
      "value. It may call only the operations that list its scope; the scopes:\n\n" +
      scopes.join("\n"),
    "x-scopes": Object.fromEntries(Object.entries(API_KEY_SCOPES).map(([n, s]) => [n, s.allows])),
  };
}

/** The OpenAPI 3.1 document of `app`. */
export function openApiDocument(app: ReturnType<typeof newRouter>, version: string) {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Ferry API",
      version,
      description:
        "Self-hosted file sharing and URL shortening; a drop-in successor to Zipline v4.",
    },
  });
}
