/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/request/<code>`: the upload box of an upload request, for anyone holding
 * its link. The server renders who asks and the message; this asks for the
 * password first when the request has one (then shows the message it opens),
 * takes an optional name, and uploads what is dropped, pasted or picked
 * through the request (`x-service-request`), in chunks that resume for large
 * files, with each one's progress.
 */
import { useCallback, useState } from "preact/hooks";
import { openRequest, type PublicRequest } from "../api/requests.ts";
import type { PageConfig } from "../config.ts";
import { DropZone } from "../components/drop_zone.tsx";
import { enqueue, UploadList } from "../components/uploads.tsx";

/** The page's configuration: the common one, the code and the request. */
type RequestConfig = PageConfig & { request: PublicRequest };

/** The password form; `onOpen` gets the password and the request it opened. */
function PasswordForm(
  { code, onOpen }: { code: string; onOpen: (password: string, request: PublicRequest) => void },
) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      onOpen(password, await openRequest(code, password));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <form class="card inline-form" onSubmit={submit} aria-label="Password">
      <label class="field grow">
        <span>This request needs a password</span>
        <input
          type="password"
          required
          autocomplete="off"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      <button type="submit" class="primary">Open</button>
      {error && <p class="error" role="alert">{error}</p>}
    </form>
  );
}

/** The upload box of the request named by the page. */
export function RequestUploadPage({ config }: { config: PageConfig }) {
  const { request, id } = config as RequestConfig;
  const code = id ?? "";
  const [password, setPassword] = useState<string | null>(request.password ? null : "");
  const [message, setMessage] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [sent, setSent] = useState(0);
  const onFiles = useCallback((files: File[]) => {
    const extra: Record<string, string> = { "x-service-request": code };
    if (password) extra["x-service-request-password"] = password;
    if (name.trim()) extra["x-service-request-uploader"] = encodeURIComponent(name.trim());
    enqueue(files, { extra }, config.chunkSize, () => setSent((n) => n + 1));
  }, [code, password, name, config]);
  if (password === null) {
    return (
      <PasswordForm
        code={code}
        onOpen={(pw, opened) => {
          setPassword(pw);
          setMessage(opened.message);
        }}
      />
    );
  }
  return (
    <>
      {message && <p class="request-message">{message}</p>}
      <div class="uploader">
        <label class="field">
          <span>Your name (optional, shown to {request.owner})</span>
          <input
            type="text"
            maxLength={100}
            autocomplete="name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <DropZone onFiles={onFiles} />
        {sent > 0 && (
          <p class="muted" role="status">
            {sent} {sent === 1 ? "file" : "files"} sent to {request.owner}. Thank you.
          </p>
        )}
        <UploadList />
      </div>
    </>
  );
}
