/// <reference lib="dom" />
/**
 * The dashboard's calls to the upload request routes (`/api/user/requests`,
 * and the public `/api/requests/{code}`), typed from the server's own zod
 * schemas (type-only imports).
 */
import type { z } from "zod";
import type {
  PublicUploadRequestSchema,
  RequestCreateBody,
  RequestPasswordBody,
  RequestPatchBody,
  UploadRequestSchema,
} from "../../routes/upload_requests.ts";
import { api, failureOf } from "../api.ts";

/** An upload request as its owner sees it. */
export type UploadRequest = z.infer<typeof UploadRequestSchema>;
/** What an uploader reads of a request. */
export type PublicRequest = Omit<z.infer<typeof PublicUploadRequestSchema>, "code">;
/** A new upload request. */
export type NewRequest = z.input<typeof RequestCreateBody>;
/** A change of an upload request. */
export type RequestChange = z.input<typeof RequestPatchBody>;

const one = (id: string) => `/api/user/requests/${encodeURIComponent(id)}`;

/** The caller's upload requests. */
export function listRequests(): Promise<UploadRequest[]> {
  return api<UploadRequest[]>("GET", "/api/user/requests");
}

/** Makes an upload request. */
export function createRequest(request: NewRequest): Promise<UploadRequest> {
  return api<UploadRequest>("POST", "/api/user/requests", request);
}

/** Changes the request `id`. */
export function changeRequest(id: string, change: RequestChange): Promise<UploadRequest> {
  return api<UploadRequest>("PATCH", one(id), change);
}

/** Closes the request `id`. */
export function closeRequest(id: string): Promise<unknown> {
  return api("DELETE", one(id));
}

/** Opens the request `code` with its password (no cookie sent); what it shows then. */
export async function openRequest(code: string, password: string): Promise<PublicRequest> {
  const body: z.input<typeof RequestPasswordBody> = { password };
  const res = await fetch(`/api/requests/${encodeURIComponent(code)}/password`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    credentials: "omit",
  });
  if (!res.ok) throw await failureOf(res);
  return await res.json() as PublicRequest;
}
