/**
 * A batch's visits made groups (`VisitGroup`): visits of one target by one
 * address and agent with one `Referer` on one day make one group, whose facts
 * are worked out once (user agent parsed, bot flag, country, visitor hash
 * under the day's salt), so a batch's work grows with its visitors, not its
 * visits. It works on the columns' indexes (`columns.ts`): a visit is
 * compared by numbers and its address, never by its long agent string. Run
 * by the visits worker (`visit_worker.ts`); pure but for what `enrich` gives.
 */
import { dayOf } from "../../db/visit_rollup.ts";
import type { VisitGroup } from "../../db/visits.ts";
import type { AgentFacts } from "./agent.ts";
import type { RawVisits } from "./columns.ts";
import type { CountryLookup } from "./geo.ts";
import type { VisitorHasher } from "./salt.ts";

/** What the groups' facts come from. */
export interface Enrichment {
  agentFacts(ua: string): AgentFacts;
  referrerHost(referer: string): string | null;
  country: CountryLookup;
  /** The hasher of the day starting at `day` (ms). */
  hasher(day: number): VisitorHasher;
  /** Bots' visits are kept (else left out). */
  countBots: boolean;
}

/** Visits alike so far: one target, address, agent, `Referer` and day, with each visit's time. */
interface Alike {
  target: number;
  ip: string;
  agent: number;
  referer: number;
  day: number;
  times: number[];
}

/** Whether `o` is of the visit whose facts follow. */
function alikeTo(
  o: Alike,
  target: number,
  ip: string,
  agent: number,
  referer: number,
  day: number,
): boolean {
  return o.target === target && o.agent === agent && o.referer === referer && o.day === day &&
    o.ip === ip;
}

/** Groups a batch compares a visit with, of one address and target. */
const ALIKE_CANDIDATES = 8;

/** The groups of `raw`: bots left out unless counted, each visitor hashed once. */
export function groupsOf(raw: RawVisits, enrich: Enrichment): VisitGroup[] {
  const alike = alikeOf(raw);
  const facts: (AgentFacts | undefined)[] = new Array(raw.strings.length);
  const hosts: (string | null | undefined)[] = new Array(raw.strings.length);
  const groups: VisitGroup[] = [];
  let hashDay = Number.NaN;
  let hash: VisitorHasher | undefined;
  for (const first of alike) {
    const ua = raw.strings[first.agent];
    const agent = facts[first.agent] ??= enrich.agentFacts(ua);
    if (agent.bot && !enrich.countBots) continue;
    const target = raw.targets[first.target]!;
    let referrer: string | null = null;
    if (first.referer >= 0) {
      const known = hosts[first.referer];
      referrer = known !== undefined
        ? known
        : (hosts[first.referer] = enrich.referrerHost(raw.strings[first.referer]));
    }
    if (first.day !== hashDay) {
      hashDay = first.day;
      hash = enrich.hasher(first.day);
    }
    groups.push({
      targetKind: target.kind,
      targetId: target.id,
      ownerId: target.ownerId,
      referrer,
      country: enrich.country(first.ip),
      browser: agent.browser,
      os: agent.os,
      device: agent.device,
      bot: agent.bot,
      visitor: hash!(first.ip, ua),
      times: first.times,
    });
  }
  return groups;
}

/**
 * The visits of `raw` gathered into runs of alike ones, in the order each
 * first came: by target and address first (a map of maps: no key string
 * made a visit), then the rest compared. At most {@link ALIKE_CANDIDATES}
 * runs are compared a key (an address sending many agents to one link makes
 * more groups, never a quadratic batch). Forgotten targets' visits are left out.
 */
function alikeOf(raw: RawVisits): Alike[] {
  const byTarget: (Map<string, Alike | Alike[]> | undefined)[] = new Array(raw.targets.length);
  const alike: Alike[] = [];
  let last: Alike | undefined;
  for (let row = 0; row < raw.count; row++) {
    const target = raw.target[row];
    if (raw.targets[target] === null) continue;
    const at = raw.times[row];
    const day = dayOf(at);
    const ip = raw.ips[row];
    const agent = raw.agent[row];
    const referer = raw.referer[row];
    if (last !== undefined && alikeTo(last, target, ip, agent, referer, day)) {
      last.times.push(at);
      continue;
    }
    const byIp = byTarget[target] ??= new Map();
    const seen = byIp.get(ip);
    let group: Alike | undefined;
    if (Array.isArray(seen)) {
      for (const other of seen) {
        if (alikeTo(other, target, ip, agent, referer, day)) {
          group = other;
          break;
        }
      }
    } else if (seen !== undefined && alikeTo(seen, target, ip, agent, referer, day)) group = seen;
    if (group !== undefined) group.times.push(at);
    else {
      group = { target, ip, agent, referer, day, times: [at] };
      alike.push(group);
      if (seen === undefined) byIp.set(ip, group);
      else if (!Array.isArray(seen)) byIp.set(ip, [seen, group]);
      else if (seen.length < ALIKE_CANDIDATES) seen.push(group);
    }
    last = group;
  }
  return alike;
}
