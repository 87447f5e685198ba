/** The OAuth link store contract, run against Deno KV and PostgreSQL. */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import type { OauthLinkRecord, OauthProvider } from "../../db/oauth.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite, storedUser } from "../helpers/stores.ts";

let tick = Date.UTC(2026, 0, 1);

function link(userId: string, provider: OauthProvider, oauthId: string): OauthLinkRecord {
  return {
    id: newId(systemRandom, Date.now()),
    userId,
    provider,
    username: `name-${oauthId}`,
    accessToken: "sealed-access",
    refreshToken: null,
    oauthId,
    createdAt: new Date(tick += 1000),
  };
}

const steps: ContractSteps = {
  "an account links once, to one user": async (store) => {
    const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
    await store.oauth.create(link(a.id, "OIDC", "1"));
    await assert.rejects(store.oauth.create(link(b.id, "OIDC", "1")), UniqueError);
    await store.oauth.create(link(b.id, "GITHUB", "1"));
    assert.equal((await store.oauth.find("OIDC", "1"))?.userId, a.id);
  },
  "refresh stores new tokens and the name": async (store) => {
    const a = await storedUser(store, "a");
    const l = link(a.id, "OIDC", "1");
    await store.oauth.create(l);
    await store.oauth.refresh(l.id, { username: "new", accessToken: "x", refreshToken: "y" });
    const [got] = await store.oauth.listByUser(a.id);
    assert.deepEqual(got, { ...l, username: "new", accessToken: "x", refreshToken: "y" });
  },
  "remove drops only the user's links to that provider, and frees the account": async (store) => {
    const [a, b] = [await storedUser(store, "a"), await storedUser(store, "b")];
    await store.oauth.create(link(a.id, "OIDC", "1"));
    await store.oauth.create(link(a.id, "GITHUB", "2"));
    await store.oauth.create(link(b.id, "OIDC", "3"));
    assert.equal(await store.oauth.removeUnlessLast(a.id, "OIDC", 1), "removed");
    assert.equal(await store.oauth.removeUnlessLast(a.id, "OIDC", 0), "missing");
    assert.deepEqual((await store.oauth.listByUser(a.id)).map((l) => l.provider), ["GITHUB"]);
    assert.equal((await store.oauth.listByUser(b.id)).length, 1);
    assert.equal(await store.oauth.find("OIDC", "1"), null);
    await store.oauth.create(link(b.id, "OIDC", "1"));
  },
  "security #22: a remove that would leave too few other links removes nothing": async (store) => {
    const a = await storedUser(store, "a");
    await store.oauth.create(link(a.id, "OIDC", "1"));
    assert.equal(await store.oauth.removeUnlessLast(a.id, "OIDC", 1), "last");
    assert.equal((await store.oauth.listByUser(a.id)).length, 1);
    assert.equal(await store.oauth.removeUnlessLast(a.id, "OIDC", 0), "removed");
    assert.deepEqual(await store.oauth.listByUser(a.id), []);
  },
  "security #22: two removes at once of a user's two links leave one": async (store) => {
    for (let round = 0; round < 5; round++) {
      const a = await storedUser(store, `a${round}`);
      await store.oauth.create(link(a.id, "OIDC", `o${round}`));
      await store.oauth.create(link(a.id, "GITHUB", `g${round}`));
      const outcomes = await Promise.all([
        store.oauth.removeUnlessLast(a.id, "OIDC", 1),
        store.oauth.removeUnlessLast(a.id, "GITHUB", 1),
      ]);
      assert.deepEqual(outcomes.sort(), ["last", "removed"]);
      assert.equal((await store.oauth.listByUser(a.id)).length, 1);
    }
  },
};

contractSuite("oauth store contract", steps);
