/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A donut chart drawn as SVG (no canvas, no library): one ring segment per
 * slice, the largest first, the smallest beyond the first eight gathered as
 * "other". It is an image with a title and a description that reads every
 * slice out, and a table beside it is its legend: each slice's colour, name,
 * value and share, so the numbers are there for everyone.
 */
import { useId } from "preact/hooks";
import { donutSlices, share, type Slice } from "../donut_slices.ts";

/** The ring's radius in the 42 × 42 view box: its circumference is 100, so lengths are percents. */
const RADIUS = 100 / (2 * Math.PI);

/**
 * The donut of `slices`, titled `title`, with its legend table; `unit` writes
 * a value for people (`3 files`), `column` heads the values' column.
 */
export function DonutChart(
  { title, slices, unit, column, name }: {
    title: string;
    slices: Slice[];
    unit: (value: number) => string;
    column: string;
    /** What a slice's label is, heading the names' column ("Type"). */
    name: string;
  },
) {
  const id = useId();
  const shown = donutSlices(slices);
  const total = shown.reduce((sum, s) => sum + s.value, 0);
  let offset = 25; // start at 12 o'clock
  const description = shown.map((s) => `${s.label}: ${unit(s.value)} (${share(s.value, total)})`)
    .join("; ");
  return (
    <div class="donut">
      <svg
        class="donut-ring"
        viewBox="0 0 42 42"
        role="img"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-desc`}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <circle class="donut-hole" cx="21" cy="21" r={RADIUS} />
        {shown.map((s, i) => {
          const length = (s.value / total) * 100;
          const segment = (
            <circle
              key={s.label}
              class={`donut-slice slice-${i}`}
              cx="21"
              cy="21"
              r={RADIUS}
              stroke-dasharray={`${length} ${100 - length}`}
              stroke-dashoffset={offset}
            />
          );
          offset = (offset - length + 100) % 100;
          return segment;
        })}
        <text class="donut-total" x="21" y="21" aria-hidden="true">
          {total.toLocaleString()}
        </text>
      </svg>
      <div class="table-scroll">
        <table class="donut-legend" aria-label={title}>
          <thead>
            <tr>
              <th scope="col">{name}</th>
              <th scope="col">{column}</th>
              <th scope="col">Share</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((s, i) => (
              <tr key={s.label}>
                <th scope="row">
                  <span class={`donut-swatch slice-${i}`} aria-hidden="true"></span>
                  {s.label}
                </th>
                <td>{s.value.toLocaleString()}</td>
                <td>{share(s.value, total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
