/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/audit` (SUPERADMIN): who changed which setting when, with
 * the old and new values (secrets come masked from the server), from
 * `GET /api/server/audit`, filtered here by key and by user.
 */
import { useState } from "preact/hooks";
import { formatDate } from "../format.ts";
import { useLoad } from "../hooks.ts";
import { auditTrail } from "../api/settings.ts";

/** A value as the trail shows it. */
function shown(value: unknown): string {
  return value === null || value === undefined ? "none" : JSON.stringify(value);
}

/** The audit trail page. */
export function AdminAuditPage() {
  const [records, , error] = useLoad(() => auditTrail(500));
  const [key, setKey] = useState("");
  const [user, setUser] = useState("");
  const rows = (records ?? []).flatMap((r) =>
    r.changes.map((change, i) => ({ record: r, change, i }))
  ).filter(({ record, change }) =>
    change.key.toLowerCase().includes(key.trim().toLowerCase()) &&
    record.user.username.toLowerCase().includes(user.trim().toLowerCase())
  );
  return (
    <>
      <h1>Audit trail</h1>
      <section class="card" aria-labelledby="audit-title">
        <h2 id="audit-title">Setting changes, newest first</h2>
        <div class="toolbar" role="search">
          <label class="field grow">
            <span>Filter by key</span>
            <input type="search" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          </label>
          <label class="field grow">
            <span>Filter by user</span>
            <input type="search" value={user} onInput={(e) => setUser(e.currentTarget.value)} />
          </label>
        </div>
        {error && <p class="error" role="alert">{error}</p>}
        {records && rows.length === 0 && <p class="muted">No change matches.</p>}
        {rows.length > 0 && (
          <div class="table-scroll">
            <table class="audit-table" aria-label="Setting changes">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Who</th>
                  <th>Key</th>
                  <th>Old</th>
                  <th>New</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ record, change, i }) => (
                  <tr key={`${record.id}:${i}`}>
                    <td>{formatDate(record.createdAt)}</td>
                    <td>{record.user.username}</td>
                    <td>
                      <code>{change.key}</code>
                    </td>
                    <td class="value">{shown(change.old)}</td>
                    <td class="value">{shown(change.new)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
