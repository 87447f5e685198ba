/**
 * OAuth links on Deno KV: the record, a per-user index, and an account index
 * (`provider`, `oauthId`) that the create checks, so an account links once.
 * Links without an account id are not indexed by account.
 */
import type { OauthLinkRecord, OauthProvider, OauthStore } from "../oauth.ts";
import { UniqueError } from "../store.ts";

const K = {
  link: (id: string) => ["oauth_link", id],
  byAccount: (provider: string, oauthId: string) => ["oauth_by_account", provider, oauthId],
  byUser: (userId: string) => ["oauth_by_user", userId],
};

/** {@link OauthStore} on Deno KV. */
export class KvOauth implements OauthStore {
  constructor(private readonly kv: Deno.Kv) {}

  async create(link: OauthLinkRecord): Promise<void> {
    const op = this.kv.atomic().check({ key: K.link(link.id), versionstamp: null })
      .set(K.link(link.id), link)
      .set([...K.byUser(link.userId), link.id], true);
    if (link.oauthId !== null) {
      const account = K.byAccount(link.provider, link.oauthId);
      op.check({ key: account, versionstamp: null }).set(account, link.id);
    }
    if (!(await op.commit()).ok) throw new UniqueError("oauthId");
  }

  async find(provider: OauthProvider, oauthId: string | null): Promise<OauthLinkRecord | null> {
    if (oauthId === null) {
      for await (const entry of this.kv.list<OauthLinkRecord>({ prefix: ["oauth_link"] })) {
        if (entry.value.provider === provider && entry.value.oauthId === null) return entry.value;
      }
      return null;
    }
    const id = (await this.kv.get<string>(K.byAccount(provider, oauthId))).value;
    return id === null ? null : (await this.kv.get<OauthLinkRecord>(K.link(id))).value;
  }

  async listByUser(userId: string): Promise<OauthLinkRecord[]> {
    const links: OauthLinkRecord[] = [];
    for await (const entry of this.kv.list({ prefix: K.byUser(userId) })) {
      const link = (await this.kv.get<OauthLinkRecord>(K.link(entry.key.at(-1) as string))).value;
      if (link) links.push(link);
    }
    return links.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async refresh(
    id: string,
    fields: Pick<OauthLinkRecord, "username" | "accessToken" | "refreshToken">,
  ): Promise<void> {
    const entry = await this.kv.get<OauthLinkRecord>(K.link(id));
    if (!entry.value) return;
    await this.kv.atomic().check(entry).set(K.link(id), { ...entry.value, ...fields }).commit();
  }

  async remove(userId: string, provider: OauthProvider): Promise<boolean> {
    const links = (await this.listByUser(userId)).filter((l) => l.provider === provider);
    for (const link of links) await this.drop(link);
    return links.length > 0;
  }

  /** Removes every link of a user; `KvStore.deleteUser` calls it. */
  async deleteByUser(userId: string): Promise<void> {
    for (const link of await this.listByUser(userId)) await this.drop(link);
  }

  private async drop(link: OauthLinkRecord): Promise<void> {
    const op = this.kv.atomic().delete(K.link(link.id)).delete([...K.byUser(link.userId), link.id]);
    if (link.oauthId !== null) op.delete(K.byAccount(link.provider, link.oauthId));
    await op.commit();
  }
}
