/**
 * Client tokens (`core/tokens.ts`): what a client holds decrypts to the stored
 * token under the server secret it was made with, and under no other, also
 * once remembered; a forged or mangled one decrypts to nothing.
 */
import assert from "node:assert/strict";
import { ManualClock, systemRandom } from "../../core/clock.ts";
import { clientToken, newStoredToken, storedTokenOf } from "../../core/tokens.ts";

const clock = new ManualClock();
/** An instance (`here`) and another with another secret (`elsewhere`): each remembers its own tokens. */
const here = { secret: "a".repeat(64), clock };
const elsewhere = { secret: "b".repeat(64), clock };

Deno.test("tokens: a client token decrypts to its stored token, again and again", () => {
  const stored = newStoredToken(Date.now(), systemRandom, "user-1");
  const client = clientToken(stored, Date.now(), here.secret, systemRandom);
  assert.equal(storedTokenOf(here, client), stored);
  assert.equal(storedTokenOf(here, client), stored, "remembered");
});

Deno.test("tokens: a remembered token is still refused under another secret", () => {
  const stored = newStoredToken(Date.now(), systemRandom, "user-2");
  const client = clientToken(stored, Date.now(), here.secret, systemRandom);
  assert.equal(storedTokenOf(here, client), stored);
  assert.equal(storedTokenOf(elsewhere, client), null);
  assert.equal(storedTokenOf(here, client), stored);
});

Deno.test("tokens: a mangled or forged client token decrypts to nothing", () => {
  const stored = newStoredToken(Date.now(), systemRandom, "user-3");
  const client = clientToken(stored, Date.now(), here.secret, systemRandom);
  const [stamp, sealed] = client.split(".");
  const [iv, body, tag] = atob(sealed).split(".");
  const flipped = `${body.slice(0, -1)}${body.endsWith("0") ? "1" : "0"}`;
  assert.equal(storedTokenOf(here, `${stamp}.${btoa([iv, flipped, tag].join("."))}`), null);
  assert.equal(storedTokenOf(here, `${stamp}.${sealed}.x`), null);
  assert.equal(storedTokenOf(here, "not a token"), null);
});
