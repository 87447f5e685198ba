/**
 * Requests the server makes on its own to addresses an administrator typed in
 * (HTTP and chat webhooks, the version service) must not reach inside: a
 * loopback, private (RFC 1918, IPv6 ULA), link-local, shared (CGNAT),
 * unspecified, multicast, reserved or cloud-metadata address, nor such an
 * address written as IPv4-mapped (or NAT64, 6to4) IPv6. The address checked
 * is the one the host name resolves to when the request is sent (a literal IP
 * is checked as it is), and every redirect's target is checked the same way.
 * An operator allow-list (`webhooksAllowedHosts`: host names, IPs and CIDRs)
 * admits what it names even when inside.
 */

/** The setting that holds the allow-list, named in refusals. */
export const ALLOW_LIST_SETTING = "webhooksAllowedHosts";

/** The most redirects followed before a request is given up. */
export const MAX_REDIRECTS = 5;

/** Every IPv4 and IPv6 address `host` resolves to; throws when it resolves to none. */
export type Resolver = (host: string, signal?: AbortSignal) => Promise<string[]>;

/** What an outbound request is checked against: the allow-list and how names resolve. */
export interface OutboundPolicy {
  allowed: readonly string[];
  resolve: Resolver;
}

/** A target that is refused: inside and not allowed, or more redirects than allowed. Final. */
export class OutboundRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefused";
  }
}

/** The system's DNS (A and AAAA records), through `Deno.resolveDns`. */
export const systemResolver: Resolver = async (host, signal) => {
  const answers = await Promise.allSettled(
    (["A", "AAAA"] as const).map((type) => Deno.resolveDns(host, type, { signal })),
  );
  const found = answers.flatMap((a) => a.status === "fulfilled" ? a.value : []);
  if (found.length > 0) return found;
  const failed = answers.find((a) => a.status === "rejected");
  const why = failed ? `: ${(failed.reason as Error).message}` : "";
  throw new Error(`could not resolve ${host}${why}`);
};

/**
 * What {@link outboundPolicy} reads of the services (`core/services.ts`,
 * which this module is beneath): the allow-list setting and the resolver.
 */
export interface OutboundSource {
  settings: { get(key: typeof ALLOW_LIST_SETTING): readonly string[] };
  resolver?: Resolver;
}

/** The policy of `s`: its allow-list setting and resolver (the system's by default). */
export function outboundPolicy(s: OutboundSource): OutboundPolicy {
  return { allowed: s.settings.get(ALLOW_LIST_SETTING), resolve: s.resolver ?? systemResolver };
}

/** An address: its family and its value as a number. */
interface Ip {
  v: 4 | 6;
  n: bigint;
}

/** A network: an address and how many leading bits count. */
interface Cidr {
  ip: Ip;
  bits: number;
}

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const part of parts) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    n = (n << 8n) | BigInt(part);
  }
  return n;
}

function parseV6(text: string): bigint | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string): bigint[] | null => {
    if (half === "") return [];
    const out: bigint[] = [];
    const items = half.split(":");
    for (const [i, item] of items.entries()) {
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = parseV4(item);
        if (v4 === null) return null;
        out.push(v4 >> 16n, v4 & 0xffffn);
      } else if (/^[0-9a-f]{1,4}$/i.test(item)) out.push(BigInt(`0x${item}`));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array(missing).fill(0n), ...tail].reduce((n, g) => (n << 16n) | g, 0n);
}

/** `text` as an address (IPv6 with or without brackets, a zone left out), or `null`. */
export function parseIp(text: string): Ip | null {
  const bare = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const v4 = parseV4(bare);
  if (v4 !== null) return { v: 4, n: v4 };
  const v6 = bare.includes(":") ? parseV6(bare) : null;
  return v6 === null ? null : { v: 6, n: v6 };
}

/** `text` as a network (`10.0.0.0/8`, `fd00::/8`, or one address), or `null`. */
function parseCidr(text: string): Cidr | null {
  const [address, bits, ...rest] = text.split("/");
  const ip = parseIp(address);
  if (!ip || rest.length > 0) return null;
  const max = ip.v === 4 ? 32 : 128;
  if (bits === undefined) return { ip, bits: max };
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  return { ip, bits: Number(bits) };
}

function contains(net: Cidr, ip: Ip): boolean {
  if (net.ip.v !== ip.v) return false;
  const shift = BigInt((ip.v === 4 ? 32 : 128) - net.bits);
  return (net.ip.n >> shift) === (ip.n >> shift);
}

/** The inside networks and what each is, the more specific first. */
const INSIDE: [Cidr, string][] = ([
  ["0.0.0.0/8", "unspecified"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "shared (CGNAT)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.169.254/32", "cloud metadata"],
  ["169.254.0.0/16", "link-local"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "reserved"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["fd00:ec2::254/128", "cloud metadata"],
  ["fc00::/7", "private (ULA)"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local"],
  ["ff00::/8", "multicast"],
] as const).map(([cidr, kind]) => [parseCidr(cidr)!, kind]);

/** IPv6 networks that carry an IPv4 address, and where in them it sits (bits from the right). */
const EMBEDDING: [Cidr, number, string][] = ([
  ["::ffff:0:0/96", 0, "IPv4-mapped"],
  ["::ffff:0:0:0/96", 0, "IPv4-translated"],
  ["64:ff9b::/96", 0, "NAT64"],
  ["::/96", 0, "IPv4-compatible"],
  ["2002::/16", 80, "6to4"],
] as const).map(([cidr, shift, name]) => [parseCidr(cidr)!, shift, name]);

/** The IPv4 address an IPv6 one carries (mapped, NAT64, 6to4 …), with how, or `null`. */
function embedded(ip: Ip): { ip: Ip; how: string } | null {
  if (ip.v !== 6) return null;
  for (const [net, shift, how] of EMBEDDING) {
    if (contains(net, ip)) return { ip: { v: 4, n: (ip.n >> BigInt(shift)) & 0xffffffffn }, how };
  }
  return null;
}

/**
 * What kind of inside address `text` is (`loopback`, `private`, `cloud
 * metadata`, …, with `IPv4-mapped` and the like named), or `null` for an
 * address on the public internet (or not an address).
 */
export function insideKind(text: string): string | null {
  const ip = parseIp(text);
  return ip && kindOf(ip);
}

function kindOf(ip: Ip): string | null {
  const direct = INSIDE.find(([net]) => contains(net, ip));
  if (direct) return direct[1];
  const inner = embedded(ip);
  const kind = inner && INSIDE.find(([net]) => contains(net, inner.ip));
  return kind ? `${kind[1]} (${inner!.how})` : null;
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/;

/** Why `entry` is not an allow-list entry (a host name, an IP or a CIDR), or `null`. */
export function allowEntryProblem(entry: string): string | null {
  if (entry.includes("/") || parseIp(entry)) {
    return parseCidr(entry)
      ? null
      : "must be a host name, an IP address or a CIDR such as 10.0.0.0/8";
  }
  return HOST_NAME.test(entry.toLowerCase())
    ? null
    : "must be a host name, an IP address or a CIDR such as 10.0.0.0/8";
}

/** The allow-list read: host names (lower case) and networks. */
interface AllowList {
  hosts: Set<string>;
  nets: Cidr[];
}

function allowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const nets: Cidr[] = [];
  for (const entry of entries) {
    const net = parseCidr(entry);
    if (net) nets.push(net);
    else hosts.add(normalHost(entry));
  }
  return { hosts, nets };
}

function allowed(list: AllowList, ip: Ip): boolean {
  const inner = embedded(ip);
  return list.nets.some((net) => contains(net, ip) || (inner !== null && contains(net, inner.ip)));
}

/** A URL's host name as compared: lower case, without brackets or a trailing dot. */
function normalHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** `localhost` and its subdomains: loopback by definition (RFC 6761), whatever DNS says. */
const isLocalhost = (host: string) => host === "localhost" || host.endsWith(".localhost");

/**
 * Why `url` is refused without asking DNS: a literal inside address or
 * `localhost` that the allow-list does not name, or a scheme other than
 * http(s); `null` when nothing is wrong before resolving. What a settings
 * change is checked with.
 */
export function literalRefusal(url: URL, allowedEntries: readonly string[]): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `${url.protocol} is not http or https`;
  }
  const host = normalHost(url.hostname);
  const list = allowList(allowedEntries);
  if (list.hosts.has(host)) return null;
  const ip = parseIp(host);
  if (isLocalhost(host)) return refusal(host, null, "loopback");
  if (!ip) return null;
  const kind = kindOf(ip);
  return kind && !allowed(list, ip) ? refusal(host, null, kind) : null;
}

function refusal(host: string, address: string | null, kind: string): string {
  const what = address === null ? `${host} is` : `${host} resolves to ${address},`;
  return `${what} a ${kind} address, and ${ALLOW_LIST_SETTING} does not allow it`;
}

/**
 * Throws {@link OutboundRefused} unless every address `url`'s host resolves
 * to (a literal IP: itself) is on the public internet or allowed; a host
 * named in the allow-list is not resolved. A name that does not resolve
 * throws the resolver's error (worth retrying).
 */
export async function checkOutboundUrl(
  url: URL,
  policy: OutboundPolicy,
  signal?: AbortSignal,
): Promise<void> {
  const early = literalRefusal(url, policy.allowed);
  if (early) throw new OutboundRefused(`Refused: ${early}`);
  const host = normalHost(url.hostname);
  const list = allowList(policy.allowed);
  if (list.hosts.has(host) || parseIp(host)) return;
  const addresses = await policy.resolve(host, signal);
  if (addresses.length === 0) throw new Error(`could not resolve ${host}`);
  for (const address of addresses) {
    const ip = parseIp(address);
    if (!ip) throw new OutboundRefused(`Refused: ${host} resolves to ${address}, not an address`);
    const kind = kindOf(ip);
    if (kind && !allowed(list, ip)) {
      throw new OutboundRefused(`Refused: ${refusal(host, address, kind)}`);
    }
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** What {@link safeFetch} sends: a string body, so that a redirect may send it again. */
export interface OutboundInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/**
 * `fetch` for a target an administrator named: each URL (the first and every
 * redirect's) is checked by {@link checkOutboundUrl} before it is asked, and
 * at most {@link MAX_REDIRECTS} redirects are followed as `fetch` would
 * (301/302 of a POST and 303 become a GET without body; 307/308 repeat the
 * request). Throws {@link OutboundRefused} for a refused target or too many
 * redirects; a network error as `fetch` does.
 */
export async function safeFetch(
  target: string | URL,
  init: OutboundInit,
  policy: OutboundPolicy,
): Promise<Response> {
  let url = new URL(target);
  let method = init.method ?? "GET";
  let body = init.body;
  let headers = { ...init.headers };
  for (let redirects = 0;; redirects++) {
    await checkOutboundUrl(url, policy, init.signal);
    const response = await fetch(url, {
      method,
      headers,
      body,
      redirect: "manual",
      signal: init.signal,
    });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return response;
    await response.body?.cancel();
    if (redirects === MAX_REDIRECTS) {
      throw new OutboundRefused(`Refused: more than ${MAX_REDIRECTS} redirects`);
    }
    url = new URL(location, url);
    const toGet = response.status === 303
      ? method !== "HEAD"
      : response.status <= 302 && method === "POST";
    if (toGet) {
      method = "GET";
      body = undefined;
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith("content-")),
      );
    }
  }
}

/**
 * The body of `response`, read as it streams and given up (the rest
 * cancelled) past `maxBytes`: an answer cannot grow the server's memory.
 */
export async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
