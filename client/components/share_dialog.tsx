/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The "Share" dialog of a file or folder (issue #34 part 2): make a share
 * link with an optional expiry, view limit and password; the new link with
 * its copy button and QR code; and the item's links with their views, each
 * revoked with a button (`/api/user/files/:id/shares`,
 * `/api/user/folders/:id/shares`, `/api/user/shares`).
 */
import { useEffect, useState } from "preact/hooks";
import {
  createShare,
  listShares,
  revokeShare,
  type Share,
  type ShareTarget,
} from "../api/shares.ts";
import { formatDate } from "../format.ts";
import { confirmAction, withToast } from "./feedback.tsx";
import { PanelDialog } from "./panel_dialog.tsx";
import { LinkTools } from "./link_tools.tsx";

export type { ShareTarget };

/** The dialog sharing `target`; `onClose` when it is closed. */
export function ShareDialog({ target, onClose }: { target: ShareTarget; onClose: () => void }) {
  const [shares, setShares] = useState<Share[]>([]);
  const [made, setMade] = useState<Share | null>(null);
  const [expires, setExpires] = useState("");
  const [maxViews, setMaxViews] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const load = () => listShares(target).then(setShares, () => {});

  useEffect(() => {
    load();
  }, []);
  const make = async (event: Event) => {
    event.preventDefault();
    try {
      const share = await createShare(target, {
        expiresAt: expires ? new Date(expires).toISOString() : null,
        maxViews: maxViews === "" ? null : Number(maxViews),
        password: password || null,
      });
      setMade(share);
      setPassword("");
      setError(null);
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const revoke = async (share: Share) => {
    const sure = await confirmAction({
      title: "Revoke this link?",
      message: `${share.url} stops working at once.`,
      confirm: "Revoke",
      deletion: true,
    });
    if (!sure) return;
    await withToast("Link revoked.", () => revokeShare(share.id));
    if (made?.id === share.id) setMade(null);
    await load();
  };

  return (
    <PanelDialog
      id="share-title"
      class="share-dialog"
      title={`Share ${target.name}`}
      onClose={onClose}
    >
      <div class="share-body">
        <form class="panel-form" onSubmit={make} aria-label="New share link">
          <p class="muted">
            A share link opens this {target.kind}{" "}
            for whoever has it, even when it is private, until it expires, has had its views, or is
            revoked.
          </p>
          <label class="field">
            <span>Expires</span>
            <input
              type="datetime-local"
              value={expires}
              onInput={(e) => setExpires(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Max views</span>
            <input
              type="number"
              min={0}
              value={maxViews}
              onInput={(e) => setMaxViews(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Password</span>
            <input
              type="password"
              autoComplete="new-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
          {error && <p class="error" role="alert">{error}</p>}
          <button type="submit" class="primary">Make a link</button>
        </form>
        {made && (
          <div class="share-made" aria-live="polite">
            <p>New link:</p>
            <LinkTools href={made.url} name={target.name} />
          </div>
        )}
        <h3>Links</h3>
        {shares.length === 0 ? <p class="muted">No links yet.</p> : (
          <ul class="share-list">
            {shares.map((share) => (
              <li key={share.id}>
                <a href={share.url} target="_blank" rel="noopener">{share.code}</a>
                <span class="muted">
                  {share.views}
                  {share.maxViews !== null && ` of ${share.maxViews}`} views
                  {share.expiresAt && `, until ${formatDate(share.expiresAt)}`}
                  {share.password && ", password"}
                </span>
                <button
                  type="button"
                  class="danger"
                  aria-label={`Revoke ${share.code}`}
                  onClick={() => revoke(share)}
                >
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </PanelDialog>
  );
}
