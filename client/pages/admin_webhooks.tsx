/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/webhooks` (SUPERADMIN): the signing secret receivers
 * verify deliveries with (hidden until revealed), how many deliveries wait,
 * and the targets configured in the settings (the registry's secret keys of
 * the Webhooks category: the URLs).
 */
import { useState } from "preact/hooks";
import { useApi } from "../hooks.ts";
import { CopyButton } from "../components/copy_button.tsx";

/** The webhooks page. */
export function AdminWebhooksPage() {
  const [status, , error] = useApi<{ secret: string; pending: number }>("/api/server/webhooks");
  const [view] = useApi<{ settings: Record<string, string | null> }>("/api/server/settings");
  const [registry] = useApi<{
    settings: { key: string; category: string; secret: boolean; description: string }[];
  }>("/api/server/settings/registry");
  const targets = (registry?.settings ?? []).filter((m) => m.category === "Webhooks" && m.secret);
  const [shown, setShown] = useState(false);
  return (
    <>
      <h1>Webhooks</h1>
      {error && <p class="error" role="alert">{error}</p>}
      <section class="card" aria-labelledby="secret-title">
        <h2 id="secret-title">Signing secret</h2>
        <p class="muted">
          Each HTTP delivery carries <code>x-service-signature: sha256=…</code>, the HMAC-SHA256 of
          {" "}
          <code>&lt;x-service-webhook-timestamp&gt;.&lt;body&gt;</code> keyed with this secret.
        </p>
        {status && (
          <div class="inline-form">
            <input
              type="text"
              readOnly
              value={shown ? status.secret : "•".repeat(24)}
              aria-label="Signing secret"
              class="grow"
            />
            <button type="button" onClick={() => setShown(!shown)}>
              {shown ? "Hide" : "Reveal"}
            </button>
            <CopyButton text={status.secret} label="Copy the signing secret" />
          </div>
        )}
      </section>
      <section class="card" aria-labelledby="targets-title">
        <h2 id="targets-title">Targets</h2>
        {status && (
          <p>
            {status.pending} {status.pending === 1 ? "delivery waits" : "deliveries wait"}{" "}
            to be sent or retried.
          </p>
        )}
        <table aria-label="Webhook targets">
          <thead>
            <tr>
              <th>Setting</th>
              <th>URL</th>
            </tr>
          </thead>
          <tbody>
            {targets.map((m) => (
              <tr key={m.key}>
                <td>
                  <code>{m.key}</code>
                  <div class="muted small">{m.description}</div>
                </td>
                <td class="value">{view?.settings[m.key] ?? <span class="muted">not set</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="muted small">
          Set the targets on the <a href="/dashboard/admin/settings">server settings</a> page.
        </p>
      </section>
    </>
  );
}
