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
import { addressOf, type RawVisits } from "./columns.ts";
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

/** Groups a batch compares a visit with, of one address and target. */
const ALIKE_CANDIDATES = 8;

/**
 * The groups of `raw`, in the order each first came: bots left out unless
 * counted, each visitor hashed once. Visits are gathered by target and
 * address first (an open-addressing table of group numbers in a typed array,
 * hashed on the target's index and the address, a number (`columns.ts`): no
 * key string, map entry or boxed number made a visit), then compared by
 * their agent, `Referer` and day as numbers
 * (the group's own in typed arrays: nothing but the group itself is made a
 * new visitor). At most {@link ALIKE_CANDIDATES} groups are compared a key
 * (an address sending many agents to one link makes more groups, never a
 * quadratic batch). Forgotten targets' visits are left out.
 */
export function groupsOf(raw: RawVisits, enrich: Enrichment): VisitGroup[] {
  const n = raw.count;
  // Each group's raw facts, by its number; `next`: the next group of its target and address.
  const target = new Int32Array(n);
  const agent = new Int32Array(n);
  const referer = new Int32Array(n);
  const day = new Float64Array(n);
  const next = new Int32Array(n);
  const address = new Float64Array(n);
  /** Each group by number; `null`: a bot's, left out. */
  const groups: (VisitGroup | null)[] = [];
  // The first group of each target and address: an open-addressing table of group numbers + 1.
  const slots = new Int32Array(tableSize(n));
  const mask = slots.length - 1;
  const facts: (AgentFacts | undefined)[] = new Array(raw.strings.length);
  const hosts: (string | null | undefined)[] = new Array(raw.strings.length);
  let hashDay = Number.NaN;
  let hash: VisitorHasher | undefined;
  let last = -1;
  /** Groups left out (bots'). */
  let left = 0;
  for (let row = 0; row < n; row++) {
    const t = raw.target[row];
    const of = raw.targets[t];
    if (of === null) continue;
    const at = raw.times[row];
    const d = dayOf(at);
    const ip = raw.address[row];
    const a = raw.agent[row];
    const r = raw.referer[row];
    let g = -1;
    if (
      last >= 0 && target[last] === t && agent[last] === a && referer[last] === r &&
      day[last] === d && address[last] === ip
    ) g = last;
    else {
      let slot = slotOf(ip, t) & mask;
      let first = -1;
      for (let held = slots[slot]; held !== 0; held = slots[slot = (slot + 1) & mask]) {
        if (target[held - 1] === t && address[held - 1] === ip) {
          first = held - 1;
          break;
        }
      }
      let compared = 0;
      for (let c = first; c >= 0 && compared < ALIKE_CANDIDATES; c = next[c], compared++) {
        if (agent[c] === a && referer[c] === r && day[c] === d) {
          g = c;
          break;
        }
      }
      if (g < 0) {
        g = groups.length;
        target[g] = t;
        agent[g] = a;
        referer[g] = r;
        day[g] = d;
        next[g] = -1;
        address[g] = ip;
        if (first < 0) slots[slot] = g + 1;
        else if (compared < ALIKE_CANDIDATES) {
          next[g] = next[first];
          next[first] = g;
        }
        const ua = raw.strings[a];
        const text = addressOf(raw, ip);
        const seen = facts[a] ??= enrich.agentFacts(ua);
        if (seen.bot && !enrich.countBots) {
          groups.push(null);
          left++;
        } else {
          let referrer: string | null = null;
          if (r >= 0) {
            const known = hosts[r];
            referrer = known !== undefined
              ? known
              : (hosts[r] = enrich.referrerHost(raw.strings[r]));
          }
          if (d !== hashDay) {
            hashDay = d;
            hash = enrich.hasher(d);
          }
          groups.push({
            targetKind: of.kind,
            targetId: of.id,
            ownerId: of.ownerId,
            referrer,
            country: enrich.country(text),
            browser: seen.browser,
            os: seen.os,
            device: seen.device,
            bot: seen.bot,
            visitor: hash!(text, ua),
            // Made holding its first time: an empty array's first push reserves room for 17.
            times: [at],
          });
        }
        last = g;
        continue;
      }
    }
    groups[g]?.times.push(at);
    last = g;
  }
  return left === 0 ? groups as VisitGroup[] : groups.filter((g): g is VisitGroup => g !== null);
}

/** A power of two at least twice `rows` (so that the table's probes stay short). */
function tableSize(rows: number): number {
  let size = 16;
  while (size < 2 * rows) size *= 2;
  return size;
}

/** A slot's hash of an address (`columns.ts`: a 32-bit value or a negative index) and a target. */
function slotOf(address: number, target: number): number {
  const h = Math.imul((address | 0) ^ Math.imul(target, 0x9e3779b1), 0x85ebca6b);
  return h ^ (h >>> 15);
}
