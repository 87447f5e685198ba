/** @jsxImportSource hono/jsx */
/**
 * `/request/<code>`: an upload request's public page. The server renders who
 * asks, for what, the message (unless the request has a password, which the
 * page asks for first) and the request's limits; the upload box (drop, paste,
 * progress, chunked and resumable uploads) is the client component
 * `client/pages/request.tsx`, mounted on `#app`. A closed request is a page
 * saying so, with 410.
 */
import type { PublicRequestView } from "../../core/upload_requests.ts";
import { formatSize } from "../../core/units/size.ts";
import { Icon } from "./icons.tsx";
import { Layout } from "./layout.tsx";

/** What the request accepts, in words (`up to 10 files · 5 MB a file · images`). */
export function limitsText(view: PublicRequestView): string {
  const parts = [
    view.filesLeft === null
      ? null
      : `${view.filesLeft} more file${view.filesLeft === 1 ? "" : "s"}`,
    view.bytesLeft === null ? null : `${formatSize(view.bytesLeft)} left`,
    view.maxFileSize === null ? null : `at most ${formatSize(view.maxFileSize)} a file`,
    view.allowedTypes.length === 0 ? null : `only ${view.allowedTypes.join(", ")}`,
    view.expiresAt === null
      ? null
      : `open until ${view.expiresAt.replace("T", " ").slice(0, 16)} UTC`,
  ];
  return parts.filter((p) => p !== null).join(" · ");
}

/** The page of an open request; `config` is the upload box's (`client/config.ts`). */
export function RequestPage(
  { site, view, config }: {
    site: string;
    view: PublicRequestView;
    config: Record<string, unknown>;
  },
) {
  const limits = limitsText(view);
  return (
    <Layout site={site} title={view.name} app>
      <section class="request-head" aria-labelledby="request-title">
        <p class="muted">
          <strong>{view.owner}</strong> asks you for files
        </p>
        <h1 id="request-title">{view.name}</h1>
        {view.message && <p class="request-message">{view.message}</p>}
        {limits && <p class="muted request-limits">{limits}</p>}
      </section>
      <div id="app" data-page="request" data-config={JSON.stringify(config)}>
        <p class="muted">Loading…</p>
        <noscript>
          <p>
            Uploading here needs JavaScript. Without it, send files with `curl -F file=@name -H
            "x-service-request: …" …/api/upload`.
          </p>
        </noscript>
      </div>
    </Layout>
  );
}

/** The page of a request that is closed, expired or unknown. */
export function RequestClosedPage({ site, message }: { site: string; message: string }) {
  return (
    <Layout site={site} title="Upload request closed">
      <section class="card problem" aria-labelledby="problem-title">
        <Icon name="warning" size={40} />
        <h1 id="problem-title">This upload request is closed</h1>
        <p>{message}. Ask whoever sent you the link for a new one.</p>
      </section>
    </Layout>
  );
}
