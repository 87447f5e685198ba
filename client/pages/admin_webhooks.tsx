/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/webhooks` (SUPERADMIN): the signing secret receivers
 * verify deliveries with (hidden until revealed; rotated after a confirm), the
 * target URLs configured in the settings (the registry's secret keys of the
 * Webhooks category), a test event for each target, the deliveries waiting in
 * the outbox with their attempts, next retry and last error, and the recently
 * finished ones with their outcome.
 */
import { useState } from "preact/hooks";
import {
  type Delivery,
  type Finished,
  getWebhookStatus,
  listDeliveries,
  listFinished,
  rotateSecret,
  sendTestEvent,
  type WebhookTest,
} from "../api/webhooks.ts";
import { getRegistry, getSettings } from "../api/settings.ts";
import { formatDate } from "../format.ts";
import { useLoad } from "../hooks.ts";
import { CopyButton } from "../components/copy_button.tsx";
import { confirmAction } from "../components/feedback.tsx";

/** The Webhooks setting that holds a rotated signing secret: not a target. */
const SIGNING_KEY = "httpWebhookSigningSecret";

const TESTS = [
  ["http", "upload"],
  ["http", "shorten"],
  ["http", "request-upload"],
  ["chat", "upload"],
  ["chat", "shorten"],
  ["chat", "request-upload"],
] as const;

function TestButton(
  { kind, event, onSent }: WebhookTest & { onSent: () => void },
) {
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | null>(null);
  const send = async () => {
    try {
      await sendTestEvent({ kind, event });
      setAnswer({ ok: true, text: "Queued." });
      onSent();
    } catch (e) {
      setAnswer({ ok: false, text: (e as Error).message });
    }
  };
  return (
    <li class="test-target">
      <span>
        {kind === "http" ? "HTTP" : "Chat"} webhook, {event} event
      </span>
      <button
        type="button"
        onClick={send}
        aria-label={`Send a test event (${event}, ${kind} webhook)`}
      >
        Send a test event
      </button>
      {answer && (
        <span class={answer.ok ? "ok" : "error"} role={answer.ok ? "status" : "alert"}>
          {answer.text}
        </span>
      )}
    </li>
  );
}

function Deliveries({ deliveries }: { deliveries: Delivery[] }) {
  if (deliveries.length === 0) return <p class="muted">No delivery waits.</p>;
  return (
    <div class="table-scroll">
      <table aria-label="Waiting deliveries">
        <thead>
          <tr>
            <th>Target</th>
            <th>Status</th>
            <th>Attempts</th>
            <th>Next try</th>
            <th>Last error</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td class="value">
                {d.kind} {d.event}: {d.url}
              </td>
              <td>{d.attempts === 0 ? "waiting" : "retrying"}</td>
              <td>{d.attempts}</td>
              <td>{formatDate(d.nextAt)}</td>
              <td>{d.lastError ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function History({ finished }: { finished: Finished[] }) {
  if (finished.length === 0) return <p class="muted">No delivery has finished yet.</p>;
  return (
    <div class="table-scroll">
      <table aria-label="Finished deliveries">
        <thead>
          <tr>
            <th>Target</th>
            <th>Status</th>
            <th>Attempts</th>
            <th>Finished</th>
            <th>Last answer</th>
          </tr>
        </thead>
        <tbody>
          {finished.map((f) => (
            <tr key={f.id}>
              <td class="value">
                {f.kind} {f.event}: {f.url}
              </td>
              <td>
                <span class={f.status === "delivered" ? "ok" : "error"}>{f.status}</span>
              </td>
              <td>{f.attempts}</td>
              <td>{formatDate(f.finishedAt)}</td>
              <td>{f.result}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RotateButton({ onRotated }: { onRotated: () => void }) {
  const [failure, setFailure] = useState<string | null>(null);
  const rotate = async () => {
    const sure = await confirmAction({
      title: "Replace the signing secret?",
      message: "Receivers that verify signatures reject deliveries until they are given the " +
        "new one.",
      confirm: "Rotate secret",
    });
    if (!sure) return;
    try {
      await rotateSecret();
      setFailure(null);
      onRotated();
    } catch (e) {
      setFailure((e as Error).message);
    }
  };
  return (
    <>
      <button type="button" onClick={rotate}>Rotate secret</button>
      {failure && <span class="error" role="alert">{failure}</span>}
    </>
  );
}

/** The webhooks page. */
export function AdminWebhooksPage() {
  const [status, reloadStatus, error] = useLoad(getWebhookStatus);
  const [deliveries, reloadDeliveries] = useLoad(listDeliveries);
  const [finished, reloadFinished] = useLoad(listFinished);
  const reload = () => {
    reloadStatus();
    reloadDeliveries();
    reloadFinished();
  };
  const [view] = useLoad(getSettings);
  const [registry] = useLoad(getRegistry);
  const targets = (registry?.settings ?? []).filter((m) =>
    m.category.endsWith("webhooks") && m.secret && m.key !== SIGNING_KEY
  );
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
            <RotateButton onRotated={reloadStatus} />
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
        <ul class="plain test-targets" aria-label="Test events">
          {TESTS.map(([kind, event]) => (
            <TestButton key={`${kind}-${event}`} kind={kind} event={event} onSent={reload} />
          ))}
        </ul>
      </section>
      <section class="card" aria-labelledby="outbox-title">
        <h2 id="outbox-title">Deliveries waiting</h2>
        <p class="muted small">
          A delivery stays here until its receiver answers 2xx or its retries run out.
        </p>
        <div class="button-row">
          <button type="button" onClick={reload}>Refresh</button>
        </div>
        {deliveries && <Deliveries deliveries={deliveries} />}
      </section>
      <section class="card" aria-labelledby="history-title">
        <h2 id="history-title">Recent deliveries</h2>
        <p class="muted small">
          The latest deliveries that were answered 2xx or given up, newest first.
        </p>
        {finished && <History finished={finished} />}
      </section>
    </>
  );
}
