/** @jsxImportSource hono/jsx */
/**
 * The page a browser sees when signing in through a provider fails (the
 * provider down, consent refused, a state that does not match, an email not
 * verified, registration closed): what went wrong, and the way back.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiError } from "../../core/errors.ts";
import type { AppEnv } from "../env.ts";
import { Layout } from "./layout.tsx";
import { page } from "./mod.tsx";

/** The error as a page, with the error's status. */
export function oauthErrorPage(c: Context<AppEnv>, error: ApiError): Response | Promise<Response> {
  const site = c.var.services.settings.get("websiteTitle");
  return page(
    c,
    <Layout site={site} title="Sign-in failed">
      <h1>Sign-in failed</h1>
      <div class="card">
        <p id="oauth-error">{error.message}</p>
        <a class="button" href="/auth/login?local">Back to sign in</a>
      </div>
    </Layout>,
    error.status as ContentfulStatusCode,
  );
}
