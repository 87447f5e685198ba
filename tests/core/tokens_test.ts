/**
 * Client tokens (`core/tokens.ts`): what a client holds decrypts to the stored
 * token under the server secret it was made with, and under no other, also
 * once remembered; a forged or mangled one decrypts to nothing.
 */
import assert from "node:assert/strict";
import { systemRandom } from "../../core/clock.ts";
import { clientToken, newStoredToken, storedTokenOf } from "../../core/tokens.ts";

const SECRET = "a".repeat(64);
const OTHER = "b".repeat(64);

Deno.test("tokens: a client token decrypts to its stored token, again and again", () => {
  const stored = newStoredToken(Date.now(), systemRandom, "user-1");
  const client = clientToken(stored, Date.now(), SECRET, systemRandom);
  assert.equal(storedTokenOf(client, SECRET), stored);
  assert.equal(storedTokenOf(client, SECRET), stored, "remembered");
});

Deno.test("tokens: a remembered token is still refused under another secret", () => {
  const stored = newStoredToken(Date.now(), systemRandom, "user-2");
  const client = clientToken(stored, Date.now(), SECRET, systemRandom);
  assert.equal(storedTokenOf(client, SECRET), stored);
  assert.equal(storedTokenOf(client, OTHER), null);
  assert.equal(storedTokenOf(client, SECRET), stored);
});

Deno.test("tokens: a mangled or forged client token decrypts to nothing", () => {
  const stored = newStoredToken(Date.now(), systemRandom, "user-3");
  const client = clientToken(stored, Date.now(), SECRET, systemRandom);
  const [stamp, sealed] = client.split(".");
  const [iv, body, tag] = atob(sealed).split(".");
  const flipped = `${body.slice(0, -1)}${body.endsWith("0") ? "1" : "0"}`;
  assert.equal(storedTokenOf(`${stamp}.${btoa([iv, flipped, tag].join("."))}`, SECRET), null);
  assert.equal(storedTokenOf(`${stamp}.${sealed}.x`, SECRET), null);
  assert.equal(storedTokenOf("not a token", SECRET), null);
});
