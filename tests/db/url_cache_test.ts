/**
 * The URL store's wrapper (`db/url_cache.ts`): names resolved through its
 * cache, views counted in its batch. Run on both stores, each of which wraps
 * its URL store once as it opens.
 */
import assert from "node:assert/strict";
import { URLS_FRESH_MS, URLS_REFRESH_AHEAD_MS } from "../../db/url_cache.ts";
import {
  type ServingSteps,
  servingSuite,
  storedUser as owner,
  urlRecord as url,
} from "../helpers/stores.ts";
import { eventually } from "../helpers/wait.ts";

const steps: ServingSteps = {
  "countView: batched, read at once, written on flushViews, gone with its URL": async (store) => {
    const u = await owner(store);
    const busy = url(u.id, "busy", { views: 2 });
    const gone = url(u.id, "gone");
    await store.urls.create(busy, null);
    await store.urls.create(gone, null);
    for (let i = 0; i < 5; i++) store.urls.countView(busy.id);
    store.urls.countView(gone.id);
    assert.equal((await store.urls.get(busy.id))?.views, 7);
    assert.equal((await store.urls.getByName("busy"))?.views, 7);
    assert.deepEqual((await store.urls.listByUser(u.id)).map((x) => x.views), [7, 1]);
    // A transaction's view of the store holds no batch: it reads what was written.
    const written = () => store.transaction((t) => t.urls.get(busy.id));
    assert.equal((await written())?.views, 2);
    assert.equal((await store.urls.delete(gone.id))?.views, 1);
    await store.urls.flushViews();
    assert.equal((await written())?.views, 7);
    assert.equal((await store.urls.get(busy.id))?.views, 7);
    assert.equal(await store.urls.get(gone.id), null);
    // An exact view after batched ones counts on top of them.
    store.urls.countView(busy.id);
    assert.equal((await store.urls.view(busy.id))?.url.views, 9);
    assert.equal((await written())?.views, 9);
  },

  "resolve: cached, but every write through the store is seen at once": async (store) => {
    const u = await owner(store);
    assert.equal(await store.urls.resolve("soon"), null);
    const soon = url(u.id, "soon");
    await store.urls.create(soon, null);
    assert.equal((await store.urls.resolve("soon"))?.id, soon.id);
    await store.urls.update(soon.id, { enabled: false, vanity: "later" }, new Date());
    assert.equal((await store.urls.resolve("soon"))?.enabled, false);
    assert.equal((await store.urls.resolve("later"))?.id, soon.id);
    await store.urls.orphanByUser(u.id);
    assert.equal((await store.urls.resolve("soon"))?.userId, null);
    await store.urls.delete(soon.id);
    assert.equal(await store.urls.resolve("soon"), null);
    assert.equal(await store.urls.resolve("later"), null);
  },

  "resolveCached: only what resolve has cached, and nothing after a write": async (store) => {
    const u = await owner(store);
    const hot = url(u.id, "hot");
    await store.urls.create(hot, null);
    assert.equal(store.urls.resolveCached("hot"), undefined);
    await store.urls.resolve("hot");
    assert.equal(store.urls.resolveCached("hot")?.id, hot.id);
    await store.urls.update(hot.id, { destination: "https://example.org/" }, new Date());
    assert.equal(store.urls.resolveCached("hot"), undefined);
    assert.equal((await store.urls.resolve("hot"))?.destination, "https://example.org/");
  },

  "resolveCached: a busy name is loaded again near its end and never leaves the cache": async (
    store,
    clock,
    backend,
  ) => {
    const u = await owner(store);
    const hot = url(u.id, "hot");
    await store.urls.create(hot, null);
    await store.urls.resolve("hot");
    // Another process disables it.
    await backend.urls.update(hot.id, { enabled: false }, new Date());
    clock.advance(URLS_FRESH_MS - URLS_REFRESH_AHEAD_MS - 1);
    assert.equal(store.urls.resolveCached("hot")?.enabled, true, "within its second");
    clock.advance(1);
    assert.equal(store.urls.resolveCached("hot")?.enabled, true, "near its end: still given");
    await eventually(
      "the name loaded again",
      () => Promise.resolve(store.urls.resolveCached("hot")?.enabled === false),
    );
    clock.advance(URLS_REFRESH_AHEAD_MS);
    assert.equal(
      store.urls.resolveCached("hot")?.enabled,
      false,
      "past the first answer's second, the reloaded one is cached",
    );
  },
};

servingSuite("url cache", steps);
