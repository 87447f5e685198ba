/**
 * The visitor hash (`core/visits/salt.ts`) is SipHash-2-4 (`siphash.ts`) of
 * `address\0agent` in UTF-8 under the first 16 bytes of SHA-256 of the day's
 * salt: the reference implementation's test vectors, the hasher against the
 * same made by hand (ASCII and not, any salt length), and salts apart.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { visitorHasher } from "../../core/visits/salt.ts";
import { sipHash24 } from "../../core/visits/siphash.ts";

/** SipHash-2-4 of 00 01 … (n-1) under the key 00 01 … 0f, n = 0 … 16 (the reference's vectors). */
const VECTORS = [
  "726fdb47dd0e0e31",
  "74f839c593dc67fd",
  "0d6c8009d9a94f5a",
  "85676696d7fb7e2d",
  "cf2794e0277187b7",
  "18765564cd99a68d",
  "cbc9466e58fee3ce",
  "ab0200f58b01d137",
  "93f5f5799a932462",
  "9e0082df0ba9e4b0",
  "7a5dbbc594ddb9f3",
  "f4b32f46226bada7",
  "751e8fbc860ee5fb",
  "14ea5627c0843d90",
  "f723ca908e7af2ee",
  "a129ca6149be45e5",
  "3f2acc7f57c29bdb",
];

Deno.test("SipHash-2-4: the reference implementation's test vectors", () => {
  const key = Uint8Array.from({ length: 16 }, (_, i) => i);
  const message = Uint8Array.from({ length: 64 }, (_, i) => i);
  for (const [n, expected] of VECTORS.entries()) {
    assert.equal(sipHash24(key, message, n), expected, `${n} bytes`);
    assert.equal(sipHash24(key, message.slice(0, n)), expected, `${n} bytes, whole array`);
  }
  assert.throws(() => sipHash24(new Uint8Array(8), message), /16 bytes/);
});

Deno.test("visitor hash: SipHash-2-4 of address and agent under the salt's key, any text", () => {
  const reference = (salt: string, ip: string, ua: string) =>
    sipHash24(
      new Uint8Array(createHash("sha256").update(salt).digest()).slice(0, 16),
      new TextEncoder().encode(`${ip}\0${ua}`),
    );
  const salts = ["", "short", "ab".repeat(32), "é".repeat(40), "x".repeat(200)];
  const visitors = [
    ["203.0.113.9", "Mozilla/5.0"],
    ["2001:db8::1", ""],
    ["", "ünïcode agent"],
    ["198.51.100.7", "x".repeat(2000)],
  ];
  for (const salt of salts) {
    const hash = visitorHasher(salt);
    for (const [ip, ua] of visitors) {
      assert.match(hash(ip, ua), /^[0-9a-f]{16}$/);
      assert.equal(hash(ip, ua), reference(salt, ip, ua), `salt ${salt.length} chars, ${ip}`);
      // The buffer is reused: the same visitor hashes the same again after another.
      assert.equal(hash(ip, ua), reference(salt, ip, ua));
    }
  }
  // Another salt, another hash; the address and the agent both count.
  const a = visitorHasher("a".repeat(64)), b = visitorHasher("b".repeat(64));
  assert.notEqual(a("203.0.113.9", "Mozilla/5.0"), b("203.0.113.9", "Mozilla/5.0"));
  assert.notEqual(a("203.0.113.9", "Mozilla/5.0"), a("203.0.113.8", "Mozilla/5.0"));
  assert.notEqual(a("203.0.113.9", "Mozilla/5.0"), a("203.0.113.9", "Mozilla/5.1"));
});
