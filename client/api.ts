/// <reference lib="dom" />
/**
 * The dashboard's one way to the server: the same JSON API every other client
 * uses, authenticated by the session cookie the browser sends.
 */

/** One validation problem of a 400 answer (`issues`): where (`path`) and what. */
export interface ApiIssue {
  path: (string | number)[];
  message: string;
}

/** A refused API call: its status, the message of the spec's error body and its `issues`. */
export class ApiFailure extends Error {
  /** Builds the failure of a call answered `status` with `message`. */
  constructor(readonly status: number, message: string, readonly issues: ApiIssue[] = []) {
    super(message);
  }
}

/** The message of an error body (`{error, statusCode}`), or the status line when there is none. */
export async function failureOf(res: Response): Promise<ApiFailure> {
  let message = `${res.status} ${res.statusText}`;
  let issues: ApiIssue[] = [];
  try {
    const body = await res.json();
    if (typeof body?.error === "string") message = body.error;
    if (Array.isArray(body?.issues)) issues = body.issues;
  } catch {
    // not JSON: the status line says it
  }
  return new ApiFailure(res.status, message, issues);
}

/** Calls `method path` with an optional JSON body; the parsed answer, or an {@link ApiFailure}. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await failureOf(res);
  return await res.json() as T;
}

/** A file as `GET /api/user/files` lists it. */
export interface ApiFile {
  id: string;
  name: string;
  originalName: string | null;
  size: number;
  type: string;
  views: number;
  maxViews: number | null;
  favorite: boolean;
  password: boolean;
  /** Served to nobody but the owner (Ferry). */
  private?: boolean;
  folderId: string | null;
  deletesAt: string | null;
  thumbnail: { path: string } | null;
  createdAt: string;
  url: string;
  tags?: { id: string; name: string; color: string }[];
}

/** One page of files. */
export interface FilePage {
  page: ApiFile[];
  total: number;
  pages: number;
}
