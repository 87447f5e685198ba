/// <reference lib="dom" />
/**
 * The dashboard's one way to the server: the same JSON API every other client
 * uses, authenticated by the session cookie the browser sends. Answers are
 * typed from the server's own zod schemas (type-only imports: nothing of the
 * server reaches the bundle).
 */
import type { z } from "zod";
import type { FilePageSchema, FileSchema } from "../routes/files.ts";

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

/** A file as the API shows it (`FileSchema` of routes/files.ts). */
export type ApiFile = z.infer<typeof FileSchema>;

/** One page of files (`FilePageSchema` of routes/files.ts). */
export type FilePage = z.infer<typeof FilePageSchema>;
