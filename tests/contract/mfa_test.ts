/** The MFA store contract (passkeys, challenges, TOTP steps), run against Deno KV and PostgreSQL. */
import assert from "node:assert/strict";
import { newId, systemRandom } from "../../core/clock.ts";
import type { ChallengeRecord, PasskeyRecord } from "../../db/mfa.ts";
import { type Backend } from "../../db/store.ts";
import { UniqueError } from "../../db/errors.ts";
import { type ContractSteps, contractSuite } from "../helpers/stores.ts";

const T0 = Date.UTC(2026, 0, 1);

/** Adds a user (passkeys reference one) and returns its id. */
async function addUser(store: Backend, username: string): Promise<string> {
  const id = newId(systemRandom, Date.now());
  await store.users.create({
    id,
    username,
    password: null,
    role: "USER",
    avatar: null,
    token: `token-${id}`,
    totpSecret: null,
    view: {},
    quota: null,
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
  });
  return id;
}

let tick = T0;

function passkey(userId: string, extra: Partial<PasskeyRecord> = {}): PasskeyRecord {
  return {
    id: newId(systemRandom, Date.now()),
    userId,
    name: "laptop",
    credentialId: newId(systemRandom, Date.now()),
    publicKey: new Uint8Array([1, 2, 3, 250, 0, 255]),
    counter: 0,
    transports: ["internal", "hybrid"],
    createdAt: new Date(tick += 1000),
    lastUsed: null,
    ...extra,
  };
}

function challenge(id: string, expiresAt: number): ChallengeRecord {
  return {
    id,
    kind: "authentication",
    challenge: "Y2hhbGxlbmdl",
    userId: null,
    rpId: "example.com",
    expiresAt: new Date(expiresAt),
  };
}

const steps: ContractSteps = {
  "passkeys round-trip every field, listed oldest first per user": async (store) => {
    const alice = await addUser(store, "alice");
    const bob = await addUser(store, "bob");
    const first = passkey(alice, { counter: 4_000_000_000 });
    const second = passkey(alice, { transports: [] });
    await store.mfa.createPasskey(second);
    await store.mfa.createPasskey(passkey(bob));
    await store.mfa.createPasskey({
      ...first,
      createdAt: new Date(second.createdAt.getTime() - 1),
    });
    const list = await store.mfa.listPasskeys(alice);
    assert.deepEqual(list.map((p) => p.id), [first.id, second.id]);
    assert.deepEqual(list[0], { ...first, createdAt: list[0].createdAt });
    assert.deepEqual(await store.mfa.getPasskeyByCredential(second.credentialId), second);
    assert.equal(await store.mfa.getPasskeyByCredential("unknown"), null);
  },
  "a credential id is unique": async (store) => {
    const alice = await addUser(store, "alice");
    const bob = await addUser(store, "bob");
    const p = passkey(alice);
    await store.mfa.createPasskey(p);
    await assert.rejects(
      store.mfa.createPasskey(passkey(bob, { credentialId: p.credentialId })),
      (e) => e instanceof UniqueError && e.field === "credentialId",
    );
    assert.deepEqual(await store.mfa.listPasskeys(bob), []);
  },
  "recordPasskeyUse sets the counter and lastUsed": async (store) => {
    const p = passkey(await addUser(store, "alice"));
    await store.mfa.createPasskey(p);
    await store.mfa.recordPasskeyUse(p.id, 7, new Date(T0 + 5000));
    const after = await store.mfa.getPasskeyByCredential(p.credentialId);
    assert.equal(after?.counter, 7);
    assert.deepEqual(after?.lastUsed, new Date(T0 + 5000));
  },
  "deletePasskey removes only the owner's passkey": async (store) => {
    const alice = await addUser(store, "alice");
    const bob = await addUser(store, "bob");
    const p = passkey(alice);
    await store.mfa.createPasskey(p);
    assert.equal(await store.mfa.deletePasskey(bob, p.id), false);
    assert.equal(await store.mfa.deletePasskey(alice, p.id), true);
    assert.equal(await store.mfa.deletePasskey(alice, p.id), false);
    assert.equal(await store.mfa.getPasskeyByCredential(p.credentialId), null);
    await store.mfa.createPasskey(passkey(bob, { credentialId: p.credentialId }));
  },
  "deleting a user removes its passkeys and TOTP step": async (store) => {
    const alice = await addUser(store, "alice");
    const p = passkey(alice);
    await store.mfa.createPasskey(p);
    assert.equal(await store.mfa.acceptTotpStep(alice, 100), true);
    await store.users.delete(alice);
    assert.equal(await store.mfa.getPasskeyByCredential(p.credentialId), null);
    assert.deepEqual(await store.mfa.listPasskeys(alice), []);
    const again = await addUser(store, "alice2");
    assert.equal(await store.mfa.acceptTotpStep(again, 100), true);
  },
  "a challenge is taken once, and not after it expired": async (store) => {
    const now = new Date(T0);
    await store.mfa.putChallenge(challenge("a", T0 + 60_000), new Date(T0));
    assert.deepEqual(await store.mfa.takeChallenge("a", now), challenge("a", T0 + 60_000));
    assert.equal(await store.mfa.takeChallenge("a", now), null);
    await store.mfa.putChallenge(challenge("b", T0 + 60_000), new Date(T0));
    assert.equal(await store.mfa.takeChallenge("b", new Date(T0 + 60_000)), null);
    assert.equal(await store.mfa.takeChallenge("b", now), null, "an expired take still removes it");
    const userId = await addUser(store, "alice");
    await store.mfa.putChallenge(
      { ...challenge("c", T0 + 1000), kind: "registration", userId },
      new Date(T0),
    );
    await store.mfa.putChallenge({ ...challenge("c", T0 + 9000), challenge: "bmV3" }, new Date(T0));
    assert.deepEqual(await store.mfa.takeChallenge("c", now), {
      ...challenge("c", T0 + 9000),
      challenge: "bmV3",
    });
  },
  "concurrent takes of one challenge: one wins": async (store) => {
    await store.mfa.putChallenge(challenge("x", T0 + 60_000), new Date(T0));
    const takes = await Promise.all(
      Array.from({ length: 8 }, () => store.mfa.takeChallenge("x", new Date(T0))),
    );
    assert.equal(takes.filter((t) => t !== null).length, 1);
  },
  "TOTP steps: only later steps pass, once, per user, even concurrently": async (store) => {
    const alice = await addUser(store, "alice");
    const bob = await addUser(store, "bob");
    assert.equal(await store.mfa.acceptTotpStep(alice, 10), true);
    assert.equal(await store.mfa.acceptTotpStep(alice, 10), false);
    assert.equal(await store.mfa.acceptTotpStep(alice, 9), false);
    assert.equal(await store.mfa.acceptTotpStep(bob, 10), true);
    const race = await Promise.all(
      Array.from({ length: 8 }, () => store.mfa.acceptTotpStep(alice, 11)),
    );
    assert.equal(race.filter(Boolean).length, 1);
  },
};

contractSuite("mfa store contract", steps);
