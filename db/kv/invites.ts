/** Invites on Deno KV: a code index key checked on create, and checked writes for uses. */
import type { InviteRecord, InviteStore } from "../invites.ts";
import { UniqueError } from "../errors.ts";
import { commitChecked } from "./helpers.ts";

const K = {
  invite: (id: string) => ["invite", id],
  code: (code: string) => ["invite_code", code],
} satisfies Record<string, (...args: string[]) => Deno.KvKey>;

/** {@link InviteStore} on Deno KV. */
export class KvInvites implements InviteStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(invite: InviteRecord): Promise<void> {
    const result = await this.kv.atomic()
      .check({ key: K.invite(invite.id), versionstamp: null })
      .check({ key: K.code(invite.code), versionstamp: null })
      .set(K.invite(invite.id), invite)
      .set(K.code(invite.code), invite.id)
      .commit();
    if (!result.ok) throw new UniqueError("code");
  }

  async get(id: string): Promise<InviteRecord | null> {
    return (await this.kv.get<InviteRecord>(K.invite(id))).value;
  }

  async getByCode(code: string): Promise<InviteRecord | null> {
    const id = (await this.kv.get<string>(K.code(code))).value;
    return id === null ? null : await this.get(id);
  }

  async list(): Promise<InviteRecord[]> {
    const invites: InviteRecord[] = [];
    for await (const entry of this.kv.list<InviteRecord>({ prefix: ["invite"] })) {
      invites.push(entry.value);
    }
    return invites.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async delete(id: string): Promise<InviteRecord | null> {
    return await commitChecked<InviteRecord | null>(async () => {
      const entry = await this.kv.get<InviteRecord>(K.invite(id));
      if (entry.value === null) return { result: null };
      const op = this.kv.atomic().check(entry).delete(K.invite(id)).delete(
        K.code(entry.value.code),
      );
      return { op, result: entry.value };
    });
  }

  async deleteByInviter(inviterId: string): Promise<number> {
    let removed = 0;
    for (const invite of await this.list()) {
      if (invite.inviterId === inviterId && await this.delete(invite.id)) removed++;
    }
    return removed;
  }

  /** Applies `change` to the invite with a checked write, retrying on a conflict. */
  private async change(
    id: string,
    change: (invite: InviteRecord) => InviteRecord | null,
  ): Promise<InviteRecord | null> {
    return await commitChecked<InviteRecord | null>(async () => {
      const entry = await this.kv.get<InviteRecord>(K.invite(id));
      const next = entry.value && change(entry.value);
      if (!next) return { result: null };
      return { op: this.kv.atomic().check(entry).set(K.invite(id), next), result: next };
    });
  }

  async use(id: string, now: Date): Promise<InviteRecord | null> {
    return await this.change(id, (invite) => {
      if (invite.expiresAt !== null && invite.expiresAt <= now) return null;
      if (invite.maxUses !== null && invite.uses >= invite.maxUses) return null;
      return { ...invite, uses: invite.uses + 1, updatedAt: now };
    });
  }

  async release(id: string): Promise<void> {
    await this.change(
      id,
      (invite) => invite.uses > 0 ? { ...invite, uses: invite.uses - 1 } : null,
    );
  }
}
