/**
 * The outbound address rules (`core/net/outbound.ts`): which addresses are
 * inside, literal hosts, resolved names with injected answers, the
 * allow-list, redirects and the bounded read. Only loopback is ever connected to.
 */
import assert from "node:assert/strict";
import {
  allowEntryProblem,
  checkOutboundUrl,
  insideKind,
  literalRefusal,
  OutboundRefused,
  readLimited,
  type Resolver,
  safeFetch,
} from "../../core/net/outbound.ts";

/** A resolver that answers from `answers` and throws for any other name. */
function answers(table: Record<string, string[]>): Resolver {
  return (host) => {
    const found = table[host];
    return found ? Promise.resolve(found) : Promise.reject(new Error(`no answer for ${host}`));
  };
}

const nowhere = answers({});

Deno.test("security #30.6: inside addresses are named, public ones are not", () => {
  const inside: [string, string][] = [
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "shared (CGNAT)"],
    ["100.127.255.255", "shared (CGNAT)"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fc00::1", "private (ULA)"],
    ["fd12:3456::1", "private (ULA)"],
    ["fd00:ec2::254", "cloud metadata"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback (IPv4-mapped)"],
    ["::ffff:7f00:1", "loopback (IPv4-mapped)"],
    ["::ffff:169.254.169.254", "cloud metadata (IPv4-mapped)"],
    ["::ffff:10.0.0.1", "private (IPv4-mapped)"],
    ["64:ff9b::a9fe:a9fe", "cloud metadata (NAT64)"],
    ["2002:7f00:1::", "loopback (6to4)"],
    ["::127.0.0.1", "loopback (IPv4-compatible)"],
  ];
  for (const [address, kind] of inside) assert.equal(insideKind(address), kind, address);
  for (
    const address of ["8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:1.1.1.1"]
  ) {
    assert.equal(insideKind(address), null, address);
  }
});

Deno.test("security #30.6: literal inside hosts are refused before DNS, unless allowed", () => {
  const refused = (url: string, allowed: string[] = []) => literalRefusal(new URL(url), allowed);
  assert.match(refused("http://127.0.0.1:8080/hook")!, /127\.0\.0\.1 is a loopback address/);
  assert.match(refused("http://localhost/hook")!, /localhost is a loopback address/);
  assert.match(refused("http://api.localhost./hook")!, /loopback/);
  assert.match(refused("http://[::ffff:a9fe:a9fe]/")!, /cloud metadata \(IPv4-mapped\)/);
  // The URL parser writes 0x7f.1 and 2130706433 as 127.0.0.1.
  assert.match(refused("http://0x7f.1/")!, /127\.0\.0\.1 is a loopback/);
  assert.match(refused("http://2130706433/")!, /loopback/);
  assert.match(refused("ftp://example.com/")!, /not http or https/);
  assert.equal(refused("https://hooks.example.com/x"), null, "a name is resolved at send time");
  assert.equal(refused("http://127.0.0.1:8080/", ["127.0.0.0/8"]), null);
  assert.equal(refused("http://127.0.0.1:8080/", ["127.0.0.1"]), null);
  assert.equal(refused("http://[::ffff:127.0.0.1]/", ["127.0.0.1"]), null, "mapped form");
  assert.equal(refused("http://localhost:3000/", ["localhost"]), null);
  assert.match(refused("http://127.0.0.2/", ["127.0.0.1"])!, /loopback/);
});

Deno.test("security #30.6: allow-list entries are host names, IPs or CIDRs", () => {
  for (const ok of ["localhost", "hooks.internal", "127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"]) {
    assert.equal(allowEntryProblem(ok), null, ok);
  }
  for (const bad of ["10.0.0.0/33", "http://x", "a b", "::1/129", "1.2.3.4/x"]) {
    assert.ok(allowEntryProblem(bad), bad);
  }
});

Deno.test("security #30.6: a name is checked on every address it resolves to", async () => {
  const resolve = answers({
    "rebind.example.com": ["93.184.216.34", "127.0.0.1"],
    "metadata.example.com": ["fd00:ec2::254"],
    "public.example.com": ["93.184.216.34", "2606:2800:220:1::1"],
  });
  const check = (url: string, allowed: string[] = []) =>
    checkOutboundUrl(new URL(url), { allowed, resolve });
  await assert.rejects(
    check("https://rebind.example.com/hook"),
    (e: Error) =>
      e instanceof OutboundRefused &&
      /rebind\.example\.com resolves to 127\.0\.0\.1, a loopback address/.test(e.message),
  );
  await assert.rejects(check("https://metadata.example.com/"), /cloud metadata/);
  await check("https://public.example.com/hook");
  await check("https://rebind.example.com/hook", ["rebind.example.com"]);
  await check("https://rebind.example.com/hook", ["127.0.0.0/8"]);
  // A name that does not resolve is an error worth retrying, not a refusal.
  await assert.rejects(
    checkOutboundUrl(new URL("https://gone.example.com/"), { allowed: [], resolve: nowhere }),
    (e: Error) => !(e instanceof OutboundRefused),
  );
});

Deno.test("security #30.6: redirects are followed only to targets that pass", async () => {
  const asked: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    asked.push(`${req.method} ${url.pathname} ${await req.text()}`);
    if (url.pathname === "/inside") {
      return new Response(null, { status: 307, headers: { location: "http://127.0.0.2:1/x" } });
    }
    if (url.pathname === "/meta") {
      return new Response(null, { status: 302, headers: { location: "http://metadata.test/" } });
    }
    if (url.pathname === "/loop") {
      return new Response(null, { status: 308, headers: { location: "/loop" } });
    }
    if (url.pathname === "/see-other") {
      return new Response(null, { status: 303, headers: { location: "/done" } });
    }
    if (url.pathname === "/keep") {
      return new Response(null, { status: 307, headers: { location: "/done" } });
    }
    return new Response("x".repeat(100));
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const policy = {
    allowed: ["127.0.0.1"],
    resolve: answers({ "metadata.test": ["169.254.169.254"] }),
  };
  const post = { method: "POST", body: "{}", headers: { "content-type": "application/json" } };
  try {
    await assert.rejects(
      safeFetch(`${base}/inside`, post, policy),
      (e: Error) => e instanceof OutboundRefused && /127\.0\.0\.2 is a loopback/.test(e.message),
    );
    await assert.rejects(safeFetch(`${base}/meta`, post, policy), /cloud metadata/);
    await assert.rejects(safeFetch(`${base}/loop`, post, policy), /more than 5 redirects/);
    assert.equal(asked.filter((a) => a.startsWith("POST /loop")).length, 6);
    asked.length = 0;
    const kept = await safeFetch(`${base}/keep`, post, policy);
    await kept.body?.cancel();
    assert.deepEqual(asked, ["POST /keep {}", "POST /done {}"], "307 repeats the POST");
    asked.length = 0;
    const seen = await safeFetch(`${base}/see-other`, post, policy);
    await seen.body?.cancel();
    assert.deepEqual(asked, ["POST /see-other {}", "GET /done "], "303 becomes a GET");

    const small = await safeFetch(`${base}/done`, {}, policy);
    assert.equal(await readLimited(small, 100), "x".repeat(100));
    const large = await safeFetch(`${base}/done`, {}, policy);
    await assert.rejects(readLimited(large, 99), /larger than 99 bytes/);
    await assert.rejects(
      safeFetch(`${base}/done`, {}, { ...policy, allowed: [] }),
      OutboundRefused,
    );
  } finally {
    await server.shutdown();
  }
});
