/**
 * Short URLs on Deno KV. Each name (code or vanity) has an index key that
 * atomic operations check and write with the record; the owner's URL count
 * is a key checked and stored in the same operation as a create or delete.
 * Views are a separate `KvU64` counter, summed without a check when there is
 * no `maxViews`, so that busy redirects do not conflict with each other.
 */
import { UniqueError } from "../errors.ts";
import { counted } from "./file_stats.ts";
import { commitChecked, defined, getAll, upgradePages } from "./helpers.ts";
import { writeInRuns } from "./many.ts";
import { chunkedUrls, placeUrls } from "./url_chunks.ts";
import {
  URL_RULE_DEFAULTS,
  type UrlPatch,
  type UrlRecord,
  type UrlStats,
  type UrlStore,
  type UrlView,
} from "../urls.ts";

const K = {
  url: (id: string) => ["url", id],
  views: (id: string) => ["url_views", id],
  name: (name: string) => ["url_name", name],
  byUser: (userId: string, id: string) => ["url_by_user", userId, id],
  userPrefix: (userId: string) => ["url_by_user", userId],
  /** Schema 4's entries of each owner's order (schema 14's record copies), which schema 21 packs. */
  byAge: (url: UrlRecord) => ["url_by_user_at", url.userId!, url.createdAt.getTime(), url.id],
  byAgePrefix: () => ["url_by_user_at"],
  ageViews: (
    url: UrlRecord,
  ) => ["url_by_user_at_views", url.userId!, url.createdAt.getTime(), url.id],
  ageViewsPrefix: (userId: string) => ["url_by_user_at_views", userId],
  viewsTotal: (userId: string) => ["url_views_total", userId],
  count: (userId: string) => ["url_count", userId],
  orphan: (id: string) => ["url_orphan", id],
  orphanPrefix: () => ["url_orphan"],
  orphanCount: () => ["url_orphan_count"],
  orphanViews: () => ["url_orphan_views"],
  expiry: (at: Date, id: string) => ["url_expiry", at.getTime(), id],
  limited: (id: string) => ["url_limited", id],
} satisfies Record<string, (...args: never[]) => Deno.KvKey>;

/** A stored URL as the store answers it: its views counted, fields added since filled in. */
const loaded = (stored: UrlRecord, views: Deno.KvU64 | null): UrlRecord => ({
  ...URL_RULE_DEFAULTS,
  ...stored,
  views: Number(views?.value ?? 0n),
});

/**
 * Adds to `op` the write of an owned `url`'s views copy in its owner's
 * oldest-first order: the URL list reads the views with one `list` call and
 * the records from the owner's chunks (`url_chunks.ts`), not a `get` of each
 * URL and of its views.
 */
function setCopies(op: Deno.AtomicOperation, url: UrlRecord) {
  if (url.userId === null) return;
  op.set(K.ageViews(url), new Deno.KvU64(BigInt(url.views)));
}

/** Adds to `op` the removal of an owned `url`'s views copy ({@link setCopies}) and views from its owner's total. */
function deleteCopies(op: Deno.AtomicOperation, url: UrlRecord) {
  if (url.userId === null) return;
  op.delete(K.ageViews(url));
  if (url.views > 0) op.sum(K.viewsTotal(url.userId), BigInt.asUintN(64, BigInt(-url.views)));
}

/**
 * Adds to `op` `n` views of `url` on top of the `url.views` it had: its
 * counter and its copy summed, or set to the new count when `exact` (a
 * counter checked against `maxViews`), and its owner's total summed.
 */
function countViews(op: Deno.AtomicOperation, url: UrlRecord, n: number, exact = false) {
  const next = new Deno.KvU64(BigInt(url.views + n));
  if (exact) op.set(K.views(url.id), next);
  else op.sum(K.views(url.id), BigInt(n));
  if (url.userId === null) {
    op.sum(K.orphanViews(), BigInt(n));
    return;
  }
  if (exact) op.set(K.ageViews(url), next);
  else op.sum(K.ageViews(url), BigInt(n));
  op.sum(K.viewsTotal(url.userId), BigInt(n));
}

/**
 * Adds to `op` the writes that count `url`, which has no owner, among the
 * URLs without one: its entry in their index, their count and views total
 * (the metrics task reads those, not every URL). `-1` removes it.
 */
function countOrphan(op: Deno.AtomicOperation, url: UrlRecord, sign: 1 | -1) {
  if (sign === 1) op.set(K.orphan(url.id), true);
  else op.delete(K.orphan(url.id));
  op.sum(K.orphanCount(), BigInt.asUintN(64, BigInt(sign)));
  if (url.views > 0) op.sum(K.orphanViews(), BigInt.asUintN(64, BigInt(sign * url.views)));
}

/** Adds to `op` the writes of `url`'s expiry index entry (none without an expiry). */
function setExpiry(op: Deno.AtomicOperation, url: UrlRecord) {
  if (url.expiresAt) op.set(K.expiry(url.expiresAt, url.id), true);
}

/** Adds to `op` the removal of `url`'s expiry index entry. */
function deleteExpiry(op: Deno.AtomicOperation, url: UrlRecord) {
  if (url.expiresAt) op.delete(K.expiry(url.expiresAt, url.id));
}

/** Adds to `op` the writes of `url`'s entry among the URLs with a view limit (none without one). */
function setLimit(op: Deno.AtomicOperation, url: UrlRecord) {
  if (url.maxViews !== null) op.set(K.limited(url.id), true);
}

/** The names a URL takes: its code and its vanity. */
const namesOf = (url: UrlRecord) => url.vanity === null ? [url.code] : [url.code, url.vanity];

/** {@link UrlStore} on Deno KV. */
export class KvUrls implements UrlStore {
  constructor(private readonly kv: Deno.Kv) {}

  /** The record entry and the URL with its current view count. */
  private async load(id: string) {
    const [entry, views] = await this.kv.getMany<[UrlRecord, Deno.KvU64]>([
      K.url(id),
      K.views(id),
    ]);
    const url = entry.value && loaded(entry.value, views.value);
    return { entry, views, url };
  }

  async addViews(id: string, count: number): Promise<void> {
    return await commitChecked(async () => {
      const entry = await this.kv.get<UrlRecord>(K.url(id));
      if (entry.value === null) return { result: undefined };
      const op = this.kv.atomic().check(entry);
      countViews(op, { ...URL_RULE_DEFAULTS, ...entry.value, views: 0 }, count);
      return { op, result: undefined };
    });
  }

  async create(url: UrlRecord, maxUrls: number | null): Promise<boolean> {
    const names = namesOf(url);
    return await commitChecked(async () => {
      const count = url.userId === null ? null : await this.kv.get<number>(K.count(url.userId));
      const owned = count?.value ?? 0;
      if (maxUrls !== null && owned >= maxUrls) return { result: false };
      const op = this.kv.atomic()
        .check({ key: K.url(url.id), versionstamp: null })
        .set(K.url(url.id), { ...url, views: 0 })
        .set(K.views(url.id), new Deno.KvU64(BigInt(url.views)));
      setExpiry(op, url);
      setLimit(op, url);
      for (const name of names) {
        op.check({ key: K.name(name), versionstamp: null }).set(K.name(name), url.id);
      }
      if (count && url.userId !== null) {
        op.check(count).set(K.count(url.userId), owned + 1).set(K.byUser(url.userId, url.id), true);
        setCopies(op, url);
        await placeUrls(this.kv, op, url.userId, { put: [{ ...URL_RULE_DEFAULTS, ...url }] });
        if (url.views > 0) op.sum(K.viewsTotal(url.userId), BigInt(url.views));
      } else countOrphan(op, url, 1);
      const lost = async () => {
        const clash = (await getAll(this.kv, names.map(K.name))).findIndex((e) => e.value !== null);
        return clash < 0 ? null : new UniqueError(clash === 0 ? "code" : "vanity");
      };
      return { op, result: true, lost };
    });
  }

  async createMany(urls: UrlRecord[]): Promise<void> {
    await writeInRuns<UrlRecord, number>(this.kv, urls, {
      owner: (u) => u.userId,
      cost: (u) => ({
        checks: namesOf(u).length,
        // Owned: its entry by user, its views copy and a share of the owner's views total
        // (its chunk written after the runs); without an owner: its entry among those,
        // their count and views total.
        mutations: 2 + namesOf(u).length + 3 + (u.expiresAt ? 1 : 0) +
          (u.maxViews === null ? 0 : 1),
      }),
      counter: K.count,
      count: (count, owned) => (count ?? 0) + owned.length,
      write: (op, url) => {
        op.set(K.url(url.id), { ...url, views: 0 })
          .set(K.views(url.id), new Deno.KvU64(BigInt(url.views)));
        setExpiry(op, url);
        setLimit(op, url);
        for (const name of namesOf(url)) {
          op.check({ key: K.name(name), versionstamp: null }).set(K.name(name), url.id);
        }
        if (url.userId !== null) op.set(K.byUser(url.userId, url.id), true);
        else countOrphan(op, url, 1);
        setCopies(op, url);
      },
      after: (op, run) => {
        const totals = new Map<string, number>();
        for (const { userId, views } of run) {
          if (userId !== null) totals.set(userId, (totals.get(userId) ?? 0) + views);
        }
        for (const [owner, views] of totals) {
          if (views > 0) op.sum(K.viewsTotal(owner), BigInt(views));
        }
      },
      clash: async (run) =>
        (await this.takenNames(run.flatMap(namesOf))).size ? new UniqueError("code") : null,
    });
    const owners = Map.groupBy(urls.filter((u) => u.userId !== null), (u) => u.userId!);
    for (const [owner, owned] of owners) await this.putInChunks(owner, owned);
  }

  /**
   * Puts `urls` of `owner` in its chunks after their records landed (an
   * import's: its runs' operations are full), {@link CHUNK_PUT} in order a
   * commit, fewer when a commit is refused as too large.
   */
  private async putInChunks(owner: string, urls: UrlRecord[]): Promise<void> {
    const sorted = urls.map((u) => ({ ...URL_RULE_DEFAULTS, ...u })).sort((a, b) =>
      a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    );
    let size = CHUNK_PUT;
    for (let at = 0; at < sorted.length;) {
      const put = sorted.slice(at, at + size);
      try {
        await commitChecked(async () => {
          const op = this.kv.atomic();
          await placeUrls(this.kv, op, owner, { put });
          return { op, result: undefined };
        });
      } catch (error) {
        if (size === 1) throw error;
        size = Math.ceil(size / 2);
        continue;
      }
      at += put.length;
    }
  }

  async takenNames(names: string[]): Promise<Set<string>> {
    const entries = await getAll(this.kv, names.map(K.name));
    return new Set(entries.filter((e) => e.value !== null).map((e) => e.key[1] as string));
  }

  async get(id: string): Promise<UrlRecord | null> {
    return (await this.load(id)).url;
  }

  async getByName(name: string): Promise<UrlRecord | null> {
    const id = (await this.kv.get<string>(K.name(name))).value;
    return id === null ? null : await this.get(id);
  }

  /** The ids of a user's URLs, in id order. */
  private async ids(userId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const entry of this.kv.list({ prefix: K.userPrefix(userId) }, { batchSize: 1000 })) {
      ids.push(entry.key.at(-1) as string);
    }
    return ids;
  }

  async listByUser(userId: string): Promise<UrlRecord[]> {
    return await this.copies(userId);
  }

  async pageByUser(userId: string, offset: number, limit: number) {
    const [urls, total] = await Promise.all([
      this.copies(userId, offset + limit),
      this.countByUser(userId),
    ]);
    return { urls: urls.slice(offset), total };
  }

  /**
   * The first `limit` of a user's URLs, oldest first: which and their views
   * from the views copies in that order ({@link setCopies}), their records
   * from the owner's chunks (`url_chunks.ts`, a few values), side by side. A
   * URL that the chunks read did not hold (written between the two) is read
   * by id.
   */
  private async copies(userId: string, limit?: number): Promise<UrlRecord[]> {
    const options = { limit, batchSize: Math.min(1000, Math.max(16, limit ?? 1000)) };
    const [records, counts] = await Promise.all([
      chunkedUrls(this.kv, userId, limit),
      Array.fromAsync(this.kv.list<Deno.KvU64>({ prefix: K.ageViewsPrefix(userId) }, options)),
    ]);
    const byId = new Map(records.map((url) => [url.id, url]));
    const missing = counts.map((e) => e.key.at(-1) as string).filter((id) => !byId.has(id));
    const read = new Map((await this.loadAll(missing)).map((url) => [url.id, url]));
    return counts.flatMap((e) => {
      const id = e.key.at(-1) as string;
      const url = byId.get(id);
      if (url) {
        url.views = Number(e.value.value);
        return [url];
      }
      const other = read.get(id);
      return other ? [other] : [];
    });
  }

  /** The URLs with these ids and their views, in that order (missing ones left out). */
  private async loadAll(ids: string[]): Promise<UrlRecord[]> {
    const [records, views] = await Promise.all([
      getAll<UrlRecord>(this.kv, ids.map(K.url)),
      getAll<Deno.KvU64>(this.kv, ids.map(K.views)),
    ]);
    return records.flatMap((e, i) => e.value ? [loaded(e.value, views[i].value)] : []);
  }

  async countByUser(userId: string): Promise<number> {
    return (await this.kv.get<number>(K.count(userId))).value ?? 0;
  }

  async statsByUser(userId: string | null): Promise<UrlStats> {
    // Both kept with every write: the URL count and the views total.
    if (userId === null) {
      const [count, views] = await this.kv.getMany<[Deno.KvU64, Deno.KvU64]>([
        K.orphanCount(),
        K.orphanViews(),
      ]);
      return { urls: counted(count.value), views: counted(views.value) };
    }
    const [count, views] = await this.kv.getMany<[number, Deno.KvU64]>([
      K.count(userId),
      K.viewsTotal(userId),
    ]);
    return { urls: count.value ?? 0, views: counted(views.value) };
  }

  async update(id: string, patch: UrlPatch, now: Date): Promise<UrlRecord | null> {
    return await commitChecked<UrlRecord | null>(async () => {
      const { entry, views } = await this.load(id);
      if (entry.value === null) return { result: null };
      const old: UrlRecord = { ...URL_RULE_DEFAULTS, ...entry.value };
      const next: UrlRecord = { ...old, ...defined(patch), updatedAt: now };
      const op = this.kv.atomic().check(entry).set(K.url(id), next);
      if (next.userId !== null) {
        await placeUrls(this.kv, op, next.userId, { put: [{ ...next, views: 0 }] });
      }
      if (old.expiresAt?.getTime() !== next.expiresAt?.getTime()) {
        deleteExpiry(op, old);
        setExpiry(op, next);
      }
      if (next.maxViews === null) op.delete(K.limited(id));
      else setLimit(op, next);
      if (next.vanity !== old.vanity) {
        if (old.vanity !== null) op.delete(K.name(old.vanity));
        if (next.vanity !== null) {
          op.check({ key: K.name(next.vanity), versionstamp: null }).set(K.name(next.vanity), id);
        }
      }
      // A check failed: the new vanity's, when another URL holds it (else a write meanwhile).
      const lost = async () => {
        if (next.vanity === null || next.vanity === old.vanity) return null;
        const holder = (await this.kv.get<string>(K.name(next.vanity))).value;
        return holder !== null && holder !== id ? new UniqueError("vanity") : null;
      };
      return { op, result: { ...next, views: Number(views.value?.value ?? 0n) }, lost };
    });
  }

  async delete(id: string): Promise<UrlRecord | null> {
    return await commitChecked<UrlRecord | null>(async () => {
      const { entry, views, url } = await this.load(id);
      if (url === null) return { result: null };
      // The views checked too: the owner's total loses exactly those counted.
      const op = this.kv.atomic().check(entry, views)
        .delete(K.url(id))
        .delete(K.views(id))
        .delete(K.name(url.code))
        .delete(K.limited(id));
      deleteExpiry(op, url);
      if (url.vanity !== null) op.delete(K.name(url.vanity));
      if (url.userId !== null) {
        const count = await this.kv.get<number>(K.count(url.userId));
        op.check(count).set(K.count(url.userId), Math.max(0, (count.value ?? 1) - 1))
          .delete(K.byUser(url.userId, id));
        deleteCopies(op, url);
        await placeUrls(this.kv, op, url.userId, { remove: [url] });
      } else countOrphan(op, url, -1);
      return { op, result: url };
    });
  }

  async view(id: string): Promise<UrlView | null> {
    return await commitChecked<UrlView | null>(async () => {
      const { entry, views, url } = await this.load(id);
      if (url === null) return { result: null };
      if (url.maxViews !== null && url.views >= url.maxViews) {
        return { result: { counted: false, url } };
      }
      const op = this.kv.atomic().check(entry);
      if (url.maxViews !== null) op.check(views);
      countViews(op, url, 1, url.maxViews !== null);
      return { op, result: { counted: true, url: { ...url, views: url.views + 1 } } };
    });
  }

  async expiredBy(at: Date, limit: number): Promise<UrlRecord[]> {
    const ids: string[] = [];
    const end = ["url_expiry", at.getTime() + 1];
    for await (const entry of this.kv.list({ prefix: ["url_expiry"], end }, { limit })) {
      ids.push(entry.key[2] as string);
    }
    const urls = await Promise.all(ids.map((id) => this.get(id)));
    return urls.filter((url) => url !== null);
  }

  /** Read from the URLs with a view limit (`["url_limited", id]`), in id order: no other URL is read. */
  async exhausted(limit: number): Promise<UrlRecord[]> {
    const found: UrlRecord[] = [];
    let ids: string[] = [];
    const take = async () => {
      for (const url of await this.loadAll(ids)) {
        if (url.maxViews !== null && url.views >= url.maxViews) found.push(url);
      }
      ids = [];
    };
    for await (const entry of this.kv.list({ prefix: ["url_limited"] }, { batchSize: 500 })) {
      ids.push(entry.key[1] as string);
      if (ids.length === 500) await take();
      if (found.length >= limit) break;
    }
    await take();
    return found.slice(0, limit);
  }

  async *iterate(): AsyncIterable<UrlRecord> {
    for await (const entry of this.kv.list<UrlRecord>({ prefix: ["url"] }, { batchSize: 500 })) {
      const views = await this.kv.get<Deno.KvU64>(K.views(entry.value.id));
      yield loaded(entry.value, views.value);
    }
  }

  async recount(userId: string | null): Promise<number> {
    if (userId === null) return await this.recountOrphans();
    const total = await this.kv.get<Deno.KvU64>(K.viewsTotal(userId));
    const count = await this.kv.get<number>(K.count(userId));
    const ids = await this.ids(userId);
    let views = 0;
    const owned: {
      entry: Deno.KvEntry<UrlRecord>;
      views: Deno.KvEntryMaybe<Deno.KvU64>;
      url: UrlRecord;
    }[] = [];
    for (let i = 0; i < ids.length; i += RECOUNT_PAGE) {
      const page = ids.slice(i, i + RECOUNT_PAGE);
      const [records, counters] = await Promise.all([
        getAll<UrlRecord>(this.kv, page.map(K.url)),
        getAll<Deno.KvU64>(this.kv, page.map(K.views)),
      ]);
      records.forEach((e, j) => {
        if (e.value?.userId !== userId) return;
        const url = loaded(e.value, counters[j].value);
        owned.push({ entry: e as Deno.KvEntry<UrlRecord>, views: counters[j], url });
        views += url.views;
      });
    }
    const at = new Map(owned.map(({ url }) => [url.id, url.createdAt.getTime()]));
    let repaired = await this.dropStrayCopies(userId, at);
    const chunked = new Map((await chunkedUrls(this.kv, userId)).map((url) => [url.id, url]));
    for (let i = 0; i < owned.length; i += RECOUNT_PAGE) {
      const page = owned.slice(i, i + RECOUNT_PAGE);
      const copies = await getAll(this.kv, page.map(({ url }) => K.ageViews(url)));
      for (const [j, { entry, views: counter, url }] of page.entries()) {
        const copy = copies[j].value;
        const right = sameRecord(chunked.get(url.id), { ...url, views: 0 }) &&
          copy instanceof Deno.KvU64 && Number(copy.value) === url.views;
        if (right) continue;
        // Checked on the record and its views: a write meanwhile wrote the copies itself.
        const op = this.kv.atomic().check(entry, counter);
        setCopies(op, url);
        await placeUrls(this.kv, op, userId, { put: [{ ...url, views: 0 }] });
        if ((await op.commit()).ok) repaired++;
      }
    }
    // The total and the count set only if no write moved them since they were read.
    const op = this.kv.atomic().check(total, count);
    let wrong = 0;
    if ((total.value?.value ?? 0n) !== BigInt(views)) {
      op.set(K.viewsTotal(userId), new Deno.KvU64(BigInt(views)));
      wrong++;
    }
    if ((count.value ?? 0) !== ids.length) {
      op.set(K.count(userId), ids.length);
      wrong++;
    }
    if (wrong > 0 && (await op.commit()).ok) repaired += wrong;
    return repaired;
  }

  /**
   * Puts right the index, count and views total of the URLs without an owner
   * ({@link countOrphan}) from their records: an entry of a URL that has an
   * owner or is gone is dropped; the count and total are set when no write
   * moved them since they were read. Returns how many it set right.
   */
  private async recountOrphans(): Promise<number> {
    const [count, total] = await this.kv.getMany<[Deno.KvU64, Deno.KvU64]>([
      K.orphanCount(),
      K.orphanViews(),
    ]);
    const ids = [];
    for await (const { key } of this.kv.list({ prefix: K.orphanPrefix() }, { batchSize: 1000 })) {
      ids.push(key[1] as string);
    }
    let repaired = 0;
    let urls = 0;
    let views = 0;
    for (let i = 0; i < ids.length; i += RECOUNT_PAGE) {
      const page = ids.slice(i, i + RECOUNT_PAGE);
      const [records, counters] = await Promise.all([
        getAll<UrlRecord>(this.kv, page.map(K.url)),
        getAll<Deno.KvU64>(this.kv, page.map(K.views)),
      ]);
      for (const [j, record] of records.entries()) {
        if (record.value?.userId === null) {
          urls++;
          views += counted(counters[j].value);
          continue;
        }
        // Checked on the record: a write meanwhile put the entry right itself.
        const op = this.kv.atomic().check(record).delete(K.orphan(page[j]));
        if ((await op.commit()).ok) repaired++;
      }
    }
    const op = this.kv.atomic().check(count, total);
    let wrong = 0;
    if (counted(count.value) !== urls) {
      op.set(K.orphanCount(), new Deno.KvU64(BigInt(urls)));
      wrong++;
    }
    if (counted(total.value) !== views) {
      op.set(K.orphanViews(), new Deno.KvU64(BigInt(views)));
      wrong++;
    }
    if (wrong > 0 && (await op.commit()).ok) repaired += wrong;
    return repaired;
  }

  /**
   * Removes the list's copies under `userId` (views copies, chunk records) of
   * no URL of the user at that place (`at`: the creation times of the URLs
   * counted); returns how many.
   */
  private async dropStrayCopies(userId: string, at: Map<string, number>): Promise<number> {
    let dropped = 0;
    /** Whether the copy of `id` at `time` is of none: not counted, and not created since. */
    const stray = async (id: string, time: number) => {
      if (at.get(id) === time) return null;
      const record = await this.kv.get<UrlRecord>(K.url(id));
      const url = record.value;
      return url?.userId === userId && url.createdAt.getTime() === time ? null : record;
    };
    for await (
      const { key } of this.kv.list({ prefix: K.ageViewsPrefix(userId) }, { batchSize: 1000 })
    ) {
      const record = await stray(key.at(-1) as string, key[2] as number);
      if (record && (await this.kv.atomic().check(record).delete(key).commit()).ok) dropped++;
    }
    for (const url of await chunkedUrls(this.kv, userId)) {
      const record = await stray(url.id, url.createdAt.getTime());
      if (!record) continue;
      const op = this.kv.atomic().check(record);
      await placeUrls(this.kv, op, userId, { remove: [url] });
      if ((await op.commit()).ok) dropped++;
    }
    return dropped;
  }

  async deleteByUser(userId: string): Promise<number> {
    let removed = 0;
    for (const id of await this.ids(userId)) if (await this.delete(id)) removed++;
    return removed;
  }

  async orphanByUser(userId: string): Promise<number> {
    let orphaned = 0;
    for (const id of await this.ids(userId)) {
      await commitChecked(async () => {
        const { entry, views, url } = await this.load(id);
        const op = this.kv.atomic().check(entry, views).delete(K.byUser(userId, id));
        if (url?.userId === userId) {
          op.set(K.url(id), { ...entry.value, userId: null }).delete(K.ageViews(url));
          await placeUrls(this.kv, op, userId, { remove: [url] });
          countOrphan(op, url, 1);
        }
        return { op, result: undefined };
      });
      orphaned++;
    }
    await this.kv.atomic().delete(K.count(userId)).delete(K.viewsTotal(userId)).commit();
    return orphaned;
  }
}

/** Whether a stored copy holds the same fields as `url` (in any order). */
function sameRecord(copy: unknown, url: UrlRecord): boolean {
  if (copy === null || typeof copy !== "object") return false;
  const fields = new Set([...Object.keys(copy), ...Object.keys(url)]);
  return [...fields].every((f) =>
    JSON.stringify((copy as Record<string, unknown>)[f]) ===
      JSON.stringify((url as unknown as Record<string, unknown>)[f])
  );
}

/** URLs one page of {@link KvUrls.recount} reads. */
const RECOUNT_PAGE = 200;

/** URLs one page of {@link backfillUrlCopies} reads: each adds 2 checks, of KV's 100. */
const COPY_PAGE = 40;

/** An owner's URLs one commit of an import puts in its chunks at most. */
const CHUNK_PUT = 100;

/** Entries one commit of {@link packUrlChunks} reads: in order (with their records, 80 of KV's 100 checks). */
const CHUNK_PAGE = 40;

/** URLs one backfill commit reads. */
const BACKFILL_PAGE = 50;

/** Gives every URL already stored the keys `keysOf` names ({@link upgradePages}, progress under `cursor`). */
async function backfillUrls(
  kv: Deno.Kv,
  cursor: Deno.KvKey,
  keysOf: (url: UrlRecord) => Deno.KvKey[],
): Promise<void> {
  await upgradePages<UrlRecord>(kv, ["url"], cursor, BACKFILL_PAGE, (op, page) => {
    for (const { value } of page) for (const key of keysOf(value)) op.set(key, true);
  });
}

/**
 * Schema 4's upgrade: every owned URL gets its key in its owner's
 * oldest-first order (`["url_by_user_at", owner, createdAt, id]`, which
 * `pageByUser` reads).
 */
export async function backfillUrlAges(kv: Deno.Kv): Promise<void> {
  await backfillUrls(
    kv,
    ["meta", "url_age_backfill"],
    (url) => url.userId === null ? [] : [K.byAge(url)],
  );
}

/**
 * Schema 9's upgrade: every URL with a view limit gets its entry among them
 * (`["url_limited", id]`, which the maxviews task reads).
 */
export async function backfillUrlLimits(kv: Deno.Kv): Promise<void> {
  await backfillUrls(
    kv,
    ["meta", "url_limit_backfill"],
    (url) => url.maxViews === null || url.maxViews === undefined ? [] : [K.limited(url.id)],
  );
}

/**
 * Schema 14's upgrade: every owned URL gets its views copy in its owner's
 * oldest-first order (which the URL list reads; schema 14 copied the record
 * there too, which schema 21's chunks hold now, filled from the entries
 * schema 4 made) and its views added to its owner's views total (the
 * statistics read it).
 * A page's views are checked with it: a view meanwhile reads the page again.
 */
export async function backfillUrlCopies(kv: Deno.Kv): Promise<void> {
  await upgradePages<UrlRecord>(
    kv,
    ["url"],
    ["meta", "url_copy_backfill"],
    COPY_PAGE,
    async (op, page) => {
      const counters = await getAll<Deno.KvU64>(kv, page.map((e) => K.views(e.value.id)));
      op.check(...counters);
      const totals = new Map<string, number>();
      page.forEach(({ value }, i) => {
        const url = loaded(value, counters[i].value);
        if (url.userId === null) return;
        setCopies(op, url);
        totals.set(url.userId, (totals.get(url.userId) ?? 0) + url.views);
      });
      for (const [owner, views] of totals) {
        if (views > 0) op.sum(K.viewsTotal(owner), BigInt(views));
      }
    },
  );
}

/**
 * Schema 16's upgrade: every URL without an owner gets its entry among them
 * and is counted in their count and views total ({@link countOrphan}), which
 * the metrics task reads instead of every URL. A page's views are checked
 * with it: a view meanwhile reads the page again.
 */
export async function backfillUrlOrphans(kv: Deno.Kv): Promise<void> {
  await upgradePages<UrlRecord>(
    kv,
    ["url"],
    ["meta", "url_orphan_backfill"],
    COPY_PAGE,
    async (op, page) => {
      const orphans = page.filter((e) => e.value.userId === null);
      const counters = await getAll<Deno.KvU64>(kv, orphans.map((e) => K.views(e.value.id)));
      op.check(...counters);
      orphans.forEach(({ value }, i) => countOrphan(op, loaded(value, counters[i].value), 1));
    },
  );
}

/**
 * Schema 21's upgrade: each owner's URL records, copied one entry each in
 * its oldest-first order since schema 14, are packed into its chunks
 * (`url_chunks.ts`), which the URL list reads, and those entries removed.
 * Read in that order a page at a time, each page's records read by id (the
 * truth, should a copy have drifted); a page whose records changed meanwhile
 * is read again.
 */
export async function packUrlChunks(kv: Deno.Kv): Promise<void> {
  await upgradePages<UrlRecord | true>(
    kv,
    K.byAgePrefix(),
    ["meta", "url_chunk_backfill"],
    CHUNK_PAGE,
    async (op, page) => {
      const records = await getAll<UrlRecord>(kv, page.map((e) => K.url(e.key.at(-1) as string)));
      op.check(...records);
      const owned = new Map<string, UrlRecord[]>();
      page.forEach(({ key }, i) => {
        op.delete(key);
        const url = records[i].value;
        if (url?.userId !== key[1] || url.createdAt.getTime() !== key[2]) return;
        owned.set(url.userId, [...owned.get(url.userId) ?? [], { ...loaded(url, null) }]);
      });
      for (const [owner, put] of owned) await placeUrls(kv, op, owner, { put });
    },
  );
}
