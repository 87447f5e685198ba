/// <reference lib="dom" />
/**
 * The dashboard's calls to the short-URL routes (`/api/user/urls`), typed
 * from the server's own zod schemas (type-only imports: nothing of the
 * server is bundled).
 */
import type { z } from "zod";
import type {
  ShortenedUrlSchema,
  UrlCreateBody,
  UrlPatchBody,
  UrlSchema,
} from "../../routes/urls.ts";
import { api, failureOf } from "../api.ts";

/** A short URL as the API shows it. */
export type ApiUrl = z.infer<typeof UrlSchema>;
/** A new short URL with its link `url`. */
export type ShortenedUrl = z.infer<typeof ShortenedUrlSchema>;
/** A change to a short URL; `password: null` removes the password. */
export type UrlChange = z.input<typeof UrlPatchBody>;

/** What a new short URL is made of: the body, and the options sent as headers. */
export type NewUrl = z.input<typeof UrlCreateBody> & { password?: string; maxViews?: string };

const one = (id: string) => `/api/user/urls/${encodeURIComponent(id)}`;

/** The caller's short URLs. */
export function listUrls(): Promise<ApiUrl[]> {
  return api<ApiUrl[]>("GET", "/api/user/urls");
}

/** Shortens `input.destination`; its password and max views go as the route's headers. */
export async function shortenUrl(input: NewUrl): Promise<ShortenedUrl> {
  const { password, maxViews, ...body } = input;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (password) headers["x-service-password"] = password;
  if (maxViews) headers["x-service-max-views"] = maxViews;
  const res = await fetch("/api/user/urls", {
    method: "POST",
    credentials: "same-origin",
    headers,
    body: JSON.stringify(body),
  });
  if (!res.ok) throw await failureOf(res);
  return await res.json() as ShortenedUrl;
}

/** Changes the short URL `id`. */
export function updateUrl(id: string, change: UrlChange): Promise<ApiUrl> {
  return api<ApiUrl>("PATCH", one(id), change);
}

/** Deletes the short URL `id`. */
export function deleteUrl(id: string): Promise<ApiUrl> {
  return api<ApiUrl>("DELETE", one(id));
}
