/** Uploads for API tests: multipart bodies built with `FormData`, sent through the app. */
import type { JsonReply, TestApp } from "./app.ts";

/** One file to upload. */
export interface TestFile {
  name: string;
  content: string | Uint8Array;
  type?: string;
}

/**
 * POSTs `files` to `/api/upload` with `headers` (auth and options), its
 * `Content-Length` declared as browsers and upload tools do (`streamed`: not
 * declared, as a body sent in chunks); returns the JSON reply.
 */
export async function uploadFiles(
  app: TestApp,
  files: TestFile[],
  headers: Record<string, string> = {},
  { streamed = false } = {},
): Promise<JsonReply> {
  const form = new FormData();
  for (const f of files) {
    const bytes = typeof f.content === "string" ? new TextEncoder().encode(f.content) : f.content;
    form.append("file", new Blob([bytes as BlobPart], { type: f.type ?? "" }), f.name);
  }
  const encoded = new Response(form);
  const sent = streamed ? encoded.body : await encoded.bytes();
  const res = await app.request("/api/upload", {
    method: "POST",
    body: sent,
    headers: {
      ...headers,
      "content-type": encoded.headers.get("content-type")!,
      ...(sent instanceof Uint8Array ? { "content-length": String(sent.byteLength) } : {}),
    },
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text: kept
  }
  return { status: res.status, body, headers: res.headers };
}

/** Uploads one text file and returns its stored name (asserting success). */
export async function uploadOne(
  app: TestApp,
  headers: Record<string, string>,
  content: string | Uint8Array = "hello ferry",
  name = "hello.txt",
  type = "text/plain",
): Promise<{ id: string; name: string; url: string }> {
  const res = await uploadFiles(app, [{ name, content, type }], headers);
  if (res.status !== 200) {
    throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body.files[0];
}

/**
 * POSTs one file to `/api/upload` with its part's `Content-Type` exactly
 * `type`, byte for byte (`FormData` would lowercase it or drop it).
 */
export async function uploadWithPartType(
  app: TestApp,
  name: string,
  content: string,
  type: string,
  headers: Record<string, string>,
): Promise<JsonReply> {
  const boundary = "ferry-test-boundary";
  const body = `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="${name}"\r\n` +
    `Content-Type: ${type}\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  const res = await app.request("/api/upload", {
    method: "POST",
    body,
    headers: { ...headers, "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}
