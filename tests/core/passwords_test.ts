/** Passwords: argon2id PHC hashes, ours and Zipline's (the argon2 npm package's defaults). */
import assert from "node:assert/strict";
import { systemRandom } from "../../core/clock.ts";
import {
  decoyHash,
  HASH_PARAMS,
  hashParamsOf,
  hashPassword,
  MAX_VERIFY_MEMORY,
  needsRehash,
  PASSWORD_WORKERS,
  passwordPoolStats,
  verifyDecoy,
  verifyPassword,
  ZIPLINE_HASH_PARAMS,
} from "../../core/passwords.ts";

const fixture = new URL(
  "../fixtures/zipline-v4-export.sample.json",
  import.meta.url,
);

Deno.test("new hashes are argon2id PHC strings that verify, and only with the password", async () => {
  const hash = await hashPassword("correct horse", systemRandom);
  assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
  assert.equal(await verifyPassword("correct horse", hash), true);
  assert.equal(await verifyPassword("correct horsE", hash), false);
  assert.notEqual(await hashPassword("correct horse", systemRandom), hash, "salted");
});

Deno.test("a hash made by Zipline (m=65536, t=3, p=4) verifies as it is", async () => {
  const doc = JSON.parse(await Deno.readTextFile(fixture));
  const maria = doc.data.users.find((u: { username: string }) => u.username === "maria");
  assert.match(maria.password, /^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
  assert.equal(await verifyPassword("maria-pass-2024", maria.password), true);
  assert.equal(await verifyPassword("maria-pass-2025", maria.password), false);
});

Deno.test("malformed hashes never verify, and the decoy always refuses", async () => {
  for (const hash of ["", "plain", "$argon2id$v=19$m=1$bad", "$2b$10$bcrypthash"]) {
    assert.equal(await verifyPassword("x", hash), false, hash);
  }
  assert.equal(await verifyDecoy("anything"), false);
});

Deno.test("security #12: Zipline's hashes (and any not Ferry's) need a rehash, Ferry's not", async () => {
  const doc = JSON.parse(await Deno.readTextFile(fixture));
  const zipline = doc.data.users.find((u: { username: string }) => u.username === "maria").password;
  assert.deepEqual(hashParamsOf(zipline), {
    algorithm: "argon2id",
    memorySize: ZIPLINE_HASH_PARAMS.memorySize,
    iterations: ZIPLINE_HASH_PARAMS.iterations,
    parallelism: ZIPLINE_HASH_PARAMS.parallelism,
  });
  assert.equal(needsRehash(zipline), true);
  assert.equal(needsRehash(await hashPassword("x", systemRandom)), false);
  const other = "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA";
  for (const hash of [other, "$argon2id$v=19$m=19456,t=3,p=1$c2FsdA$aGFzaA", "", "plain"]) {
    assert.equal(needsRehash(hash), true, hash);
  }
});

Deno.test("security #30.8: the decoy is made with Ferry's own parameters, as every hash Ferry stores", async () => {
  const decoy = await decoyHash();
  assert.deepEqual(hashParamsOf(decoy), {
    algorithm: "argon2id",
    memorySize: HASH_PARAMS.memorySize,
    iterations: HASH_PARAMS.iterations,
    parallelism: HASH_PARAMS.parallelism,
  });
  assert.equal(needsRehash(decoy), false);
});

Deno.test("a stored hash that asks for more memory than MAX_VERIFY_MEMORY never verifies", async () => {
  const hash = await hashPassword("pw", systemRandom);
  const greedy = hash.replace("m=19456", `m=${MAX_VERIFY_MEMORY * 2}`);
  assert.equal(await verifyPassword("pw", greedy), false);
});

Deno.test("hashes run on password workers, which live on from hash to hash (each hash's memory is collected after it)", async () => {
  const before = passwordPoolStats() ?? { started: 0, ended: 0, tasks: 0 };
  const hashes = [];
  for (let i = 0; i < 8; i++) hashes.push(await hashPassword(`pw ${i}`, systemRandom));
  const after = passwordPoolStats()!;
  assert.equal(after.tasks - before.tasks, 8);
  assert.equal(after.ended - before.ended, 0, "no worker ends between hashes");
  assert.ok(after.started - before.started <= PASSWORD_WORKERS);
  assert.equal(await verifyPassword("pw 3", hashes[3]), true);
  assert.ok(passwordPoolStats()!.workers <= PASSWORD_WORKERS);
});
