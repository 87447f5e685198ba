/**
 * The visitor hash (`core/visits/salt.ts`) is HMAC-SHA-256 under the day's
 * salt, cut to 16 hex digits: the same as node:crypto's `createHmac` (and as
 * hash-wasm's, which made it before), so hashes made before and after the
 * change on one day count a visitor once. Keys longer than SHA-256's block
 * are hashed first, as RFC 2104 says.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { visitorHasher } from "../../core/visits/salt.ts";

const reference = (salt: string, ip: string, ua: string) =>
  createHmac("sha256", salt).update(`${ip}\0${ua}`).digest("hex").slice(0, 16);

Deno.test("visitor hash: HMAC-SHA-256 of address and agent under the salt, for any key length", () => {
  const salts = ["", "short", "ab".repeat(32), "é".repeat(40), "x".repeat(200)];
  const visitors = [["203.0.113.9", "Mozilla/5.0"], ["2001:db8::1", ""], ["", "ünïcode agent"]];
  for (const salt of salts) {
    const hash = visitorHasher(salt);
    for (const [ip, ua] of visitors) {
      assert.equal(hash(ip, ua), reference(salt, ip, ua), `salt ${salt.length} chars, ${ip}`);
      // The keyed states are copied, never consumed: the same visitor hashes the same again.
      assert.equal(hash(ip, ua), reference(salt, ip, ua));
    }
  }
});
