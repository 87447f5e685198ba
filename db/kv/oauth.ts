/**
 * OAuth links on Deno KV: the record, a per-user index, and an account index
 * (`provider`, `oauthId`) that the create checks, so an account links once.
 * Links without an account id are not indexed by account.
 */
import type { OauthLinkRecord, OauthProvider, OauthStore, RemoveOutcome } from "../oauth.ts";
import { UniqueError } from "../errors.ts";
import { getAll } from "./helpers.ts";

const K = {
  link: (id: string) => ["oauth_link", id],
  byAccount: (provider: string, oauthId: string) => ["oauth_by_account", provider, oauthId],
  byUser: (userId: string) => ["oauth_by_user", userId],
};

/** How often a remove re-reads after a conflicting write before giving up. */
const REMOVE_ATTEMPTS = 20;

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

  /**
   * Reads the user's link index with its versionstamps and deletes only if
   * none of those entries changed meanwhile (another remove deleted one);
   * on such a conflict it reads again and counts anew.
   */
  async removeUnlessLast(
    userId: string,
    provider: OauthProvider,
    keepAtLeast: number,
  ): Promise<RemoveOutcome> {
    for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt++) {
      const index = await Array.fromAsync(this.kv.list({ prefix: K.byUser(userId) }));
      const records = await getAll<OauthLinkRecord>(
        this.kv,
        index.map((e) => K.link(e.key.at(-1) as string)),
      );
      const links = records.flatMap((e) => e.value ? [e.value] : []);
      const mine = links.filter((l) => l.provider === provider);
      if (mine.length === 0) return "missing";
      if (links.length - mine.length < keepAtLeast) return "last";
      const op = this.kv.atomic();
      for (const entry of index) op.check(entry);
      for (const link of mine) this.dropIn(op, link);
      if ((await op.commit()).ok) return "removed";
    }
    throw new Error("oauth link remove kept conflicting");
  }

  /** Removes every link of a user; `KvUsers.delete` (`users.ts`) calls it. */
  async deleteByUser(userId: string): Promise<void> {
    for (const link of await this.listByUser(userId)) await this.drop(link);
  }

  private async drop(link: OauthLinkRecord): Promise<void> {
    await this.dropIn(this.kv.atomic(), link).commit();
  }

  /** Adds the deletes of `link`'s record and its index entries to `op`. */
  private dropIn(op: Deno.AtomicOperation, link: OauthLinkRecord): Deno.AtomicOperation {
    op.delete(K.link(link.id)).delete([...K.byUser(link.userId), link.id]);
    if (link.oauthId !== null) op.delete(K.byAccount(link.provider, link.oauthId));
    return op;
  }
}
