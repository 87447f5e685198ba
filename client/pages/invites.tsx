/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/admin/invites` (administrators, while invites are on): the
 * instance's invites, as Zipline's own page and sidebar item has them. Create
 * one with an expiry chosen from presets and a number of uses (or no limit);
 * each is listed with its uses, expiry and inviter, whether it still works,
 * and its link (copy, QR code, open); delete one after a confirmation.
 */
import { useState } from "preact/hooks";
import { createInvite, deleteInvite, type Invite, listInvites } from "../api/invites.ts";
import { useLoad } from "../hooks.ts";
import { formatDate } from "../format.ts";
import { IconButton } from "../icons.tsx";
import { LinkTools } from "../components/link_tools.tsx";
import { SelectField, TextField } from "../components/field.tsx";
import { confirmAction, toast, withToast } from "../components/feedback.tsx";

/** The expiry presets Zipline's invite form offers: the API's value and what a person reads. */
export const INVITE_EXPIRIES: readonly (readonly [string, string])[] = [
  ["never", "Never"],
  ["30m", "30 minutes"],
  ["1h", "1 hour"],
  ["6h", "6 hours"],
  ["12h", "12 hours"],
  ["1d", "1 day"],
  ["3d", "3 days"],
  ["5d", "5 days"],
  ["7d", "7 days"],
];

/** Why `invite` no longer lets anyone register at `now` (ms), or `null` while it works. */
export function inviteSpent(invite: Invite, now: number): string | null {
  if (invite.expiresAt && Date.parse(invite.expiresAt) <= now) return "expired";
  if (invite.maxUses !== null && invite.uses >= invite.maxUses) return "used up";
  return null;
}

/** The address that opens the registration page with `code` filled in. */
function inviteLink(code: string): string {
  return `${location.origin}/invite/${encodeURIComponent(code)}`;
}

function NewInvite({ onCreated }: { onCreated: () => void }) {
  const [expiresAt, setExpiresAt] = useState("7d");
  const [maxUses, setMaxUses] = useState("1");
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const made = await createInvite({
        expiresAt,
        maxUses: maxUses === "" ? null : Number(maxUses),
      });
      toast(`Created the invite ${made.code}.`);
      onCreated();
    } catch (e) {
      toast((e as Error).message, "error");
    }
  };
  return (
    <section class="card" aria-labelledby="new-invite-title">
      <h2 id="new-invite-title">New invite</h2>
      <form class="inline-form" onSubmit={create} aria-label="New invite">
        <SelectField
          label="Expires after"
          value={expiresAt}
          onValue={setExpiresAt}
          options={INVITE_EXPIRIES}
        />
        <TextField
          label="Max uses"
          type="number"
          min={1}
          placeholder="No limit"
          value={maxUses}
          onValue={setMaxUses}
        />
        <button type="submit" class="primary">Create invite</button>
      </form>
      <p class="muted">
        Whoever opens the link registers with the code filled in. Leave "Max uses" empty for no
        limit.
      </p>
    </section>
  );
}

function InviteRow({ invite, onDeleted }: { invite: Invite; onDeleted: () => void }) {
  const spent = inviteSpent(invite, Date.now());
  const remove = async () => {
    const sure = await confirmAction({
      title: "Delete this invite?",
      message: `The invite ${invite.code} stops working.`,
      confirm: "Delete",
      deletion: true,
    });
    if (
      sure && await withToast(`Deleted the invite ${invite.code}.`, () => deleteInvite(invite.id))
    ) {
      onDeleted();
    }
  };
  return (
    <li class="invite-row">
      <div class="url-head">
        <strong>{invite.code}</strong>
        {spent && <span class="badge danger">{spent}</span>}
        <span class="muted invite-facts">
          used {invite.uses}
          {invite.maxUses !== null ? ` of ${invite.maxUses}` : " (no limit)"} ·{" "}
          {invite.expiresAt ? `expires ${formatDate(invite.expiresAt)}` : "never expires"}
          {invite.inviter && ` · by ${invite.inviter.username}`} · made{" "}
          {formatDate(invite.createdAt)}
        </span>
        <IconButton
          icon="trash"
          danger
          label={`Delete the invite ${invite.code}`}
          title="Delete"
          onClick={remove}
        />
      </div>
      <LinkTools href={inviteLink(invite.code)} name={`the invite ${invite.code}`} />
    </li>
  );
}

/** The invites page. */
export function InvitesPage() {
  const [invites, reload, error] = useLoad(listInvites);
  return (
    <>
      <h1>Invites</h1>
      <NewInvite onCreated={reload} />
      <section class="card" aria-labelledby="invites-title">
        <h2 id="invites-title">
          All invites {invites && <span class="badge">{invites.length}</span>}
        </h2>
        {error && <p class="error" role="alert">{error}</p>}
        {invites && invites.length === 0 && <p class="muted">No invites yet.</p>}
        {invites && invites.length > 0 && (
          <ul class="url-list" aria-label="Invites">
            {[...invites].reverse().map((invite) => (
              <InviteRow key={invite.id} invite={invite} onDeleted={reload} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
