/**
 * Paired measurements on a shared machine: two sides (two builds, two
 * credentials…) measured alternately, round after round, so that whatever
 * else loads the machine falls on both alike. The first of each round
 * alternates (a b, b a, a b, …) so that neither side always follows the
 * other; the verdict is the median of the rounds' ratios, each taken between
 * two runs minutes apart at most.
 */
import { loadAverage } from "./machine.ts";

/** One round: each side's measurement, which ran first, and the load average as it began. */
export interface PairedRound<T> {
  a: T;
  b: T;
  first: "a" | "b";
  /** `/proc/loadavg`'s 1, 5 and 15 minute figures at the round's start. */
  load: string;
}

/**
 * Runs `measure("a")` and `measure("b")` in each of `rounds` rounds, the one
 * that goes first alternating from round to round; returns the rounds.
 */
export async function alternate<T>(
  rounds: number,
  measure: (side: "a" | "b", round: number) => Promise<T>,
): Promise<PairedRound<T>[]> {
  const done: PairedRound<T>[] = [];
  for (let round = 0; round < rounds; round++) {
    const load = await loadAverage();
    const first = round % 2 === 0 ? "a" : "b";
    const second = first === "a" ? "b" : "a";
    const results = {} as Record<"a" | "b", T>;
    results[first] = await measure(first, round);
    results[second] = await measure(second, round);
    done.push({ ...results, first, load });
  }
  return done;
}

/** The median of `values` (the mean of the middle two when their count is even). */
export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** What the rounds say of one figure: each side's median and the median of the ratios b / a. */
export interface PairedVerdict {
  a: number;
  b: number;
  /** The median over rounds of `b / a`. */
  ratio: number;
  /** Each round's `b / a`, in order. */
  ratios: number[];
}

/** {@link PairedVerdict} of `figure` (say requests per second) over `rounds`. */
export function pairedVerdict<T>(
  rounds: PairedRound<T>[],
  figure: (measured: T) => number,
): PairedVerdict {
  const ratios = rounds.map((r) => figure(r.b) / figure(r.a));
  return {
    a: median(rounds.map((r) => figure(r.a))),
    b: median(rounds.map((r) => figure(r.b))),
    ratio: median(ratios),
    ratios,
  };
}
