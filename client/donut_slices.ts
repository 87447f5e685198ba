/**
 * The slices a donut chart draws (`client/components/donut_chart.tsx`): the
 * largest first, the smallest beyond the first eight gathered as "other",
 * and each one's share written for people. Plain functions, tested without a
 * browser.
 */

/** One slice: its name and value. */
export interface Slice {
  label: string;
  value: number;
}

/** Slices drawn in a colour of their own; the rest are one "other" slice. */
const MOST = 8;
/** `slices` largest first, the ones beyond {@link MOST} summed as "other", without empty ones. */
export function donutSlices(slices: Slice[]): Slice[] {
  const sorted = slices.filter((s) => s.value > 0).sort((a, b) =>
    b.value - a.value || a.label.localeCompare(b.label)
  );
  if (sorted.length <= MOST) return sorted;
  const other = sorted.slice(MOST - 1).reduce((sum, s) => sum + s.value, 0);
  return [...sorted.slice(0, MOST - 1), { label: "other", value: other }];
}

/** `part` of `whole` as a percentage for people (`33%`, `2.5%`, `<0.1%`). */
export function share(part: number, whole: number): string {
  if (whole <= 0) return "0%";
  const percent = (part / whole) * 100;
  if (percent > 0 && percent < 0.1) return "<0.1%";
  return `${percent < 10 ? percent.toFixed(1).replace(/\.0$/, "") : Math.round(percent)}%`;
}
