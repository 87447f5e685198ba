/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A line chart of numbers over time, drawn by uPlot on a canvas in the
 * page's colours (read from the stylesheet, so dark and light both work) and
 * redrawn when the theme or the width changes. The time axis spans the range
 * asked for (not what uPlot would make of a single point), the value axis
 * starts at zero, counts tick in whole numbers, and each value is written
 * with its unit.
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

/** One line: its name and a value per time. */
export interface Line {
  label: string;
  values: number[];
}

/** The resolved colour of a CSS variable (`--accent`), as the canvas needs it. */
function cssColour(variable: string): string {
  const probe = document.createElement("span");
  probe.style.color = `var(${variable})`;
  document.body.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
}

const LINE_COLOURS = ["--accent", "--ok", "--danger"];

/** Calls `redraw` when the colour scheme or the page's theme changes. */
function onThemeChange(redraw: () => void): () => void {
  const media = matchMedia("(prefers-color-scheme: dark)");
  media.addEventListener("change", redraw);
  const observer = new MutationObserver(redraw);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  return () => {
    media.removeEventListener("change", redraw);
    observer.disconnect();
  };
}

/** Whole-number steps for counts: a count axis never ticks at 0.5. */
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6];

/** Steps for sizes: whole bytes, then round numbers of KB, MB, GB and TB. */
const BYTE_STEPS = [0, 1, 2, 3, 4].flatMap((power) =>
  [1, 2, 5, 10, 20, 50, 100, 200, 500].map((n) => n * 1024 ** power)
);

/** A time span in ms: `[from, to]`. */
export type Span = readonly [number, number];

/**
 * The chart of `lines` over `times` (ms) across `span`, labelled `title`;
 * `format` writes a value with its unit (`3 files`, `1.5 MB`); the value axis
 * ticks in whole numbers for a `count`, else in round sizes.
 */
export function TimeChart(
  { title, times, lines, span, format, count = true }: {
    title: string;
    times: number[];
    lines: Line[];
    span: Span;
    format: (value: number) => string;
    count?: boolean;
  },
) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let chart: uPlot | null = null;
    const draw = () => {
      chart?.destroy();
      const text = cssColour("--muted");
      const grid = cssColour("--line");
      const axis = {
        stroke: text,
        grid: { stroke: grid, width: 1 },
        ticks: { stroke: grid, width: 1 },
      };
      chart = new uPlot(
        {
          width: Math.max(element.clientWidth, 200),
          height: 220,
          legend: { show: false },
          hooks: {
            // The span drawn, for tests and tools: what the time axis really covers.
            setScale: [(u, key) => {
              if (key !== "x") return;
              element.dataset.xFrom = String(Math.round((u.scales.x.min ?? 0) * 1000));
              element.dataset.xTo = String(Math.round((u.scales.x.max ?? 0) * 1000));
            }],
          },
          cursor: { show: false },
          scales: {
            x: { time: true, range: () => [span[0] / 1000, span[1] / 1000] },
            y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] },
          },
          axes: [
            axis,
            {
              ...axis,
              size: 80,
              incrs: count ? COUNT_STEPS : BYTE_STEPS,
              values: (_u, ticks) => ticks.map(format),
            },
          ],
          series: [
            {},
            ...lines.map((line, i) => ({
              label: line.label,
              stroke: cssColour(LINE_COLOURS[i % LINE_COLOURS.length]),
              width: 2,
              points: { show: times.length < 40, size: 6 },
            })),
          ],
        },
        [times.map((t) => t / 1000), ...lines.map((l) => l.values)],
        element,
      );
    };
    draw();
    const resize = new ResizeObserver(() => {
      if (chart && Math.abs(chart.width - element.clientWidth) > 4) draw();
    });
    resize.observe(element);
    const stop = onThemeChange(draw);
    return () => {
      stop();
      resize.disconnect();
      chart?.destroy();
    };
  }, [times, lines, span[0], span[1]]);
  const latest = lines.map((l) => `${l.label}: ${format(l.values.at(-1) ?? 0)}`).join(", ");
  const from = new Date(span[0]).toLocaleString();
  const to = new Date(span[1]).toLocaleString();
  return (
    <figure class="chart">
      <figcaption>
        {title}
        {lines.length > 1 && (
          <span class="chart-legend">
            {lines.map((l, i) => <span key={l.label} class={`legend-${i}`}>{l.label}</span>)}
          </span>
        )}
      </figcaption>
      <div
        ref={box}
        class="chart-canvas"
        role="img"
        aria-label={`Chart: ${title}`}
        aria-description={`From ${from} to ${to}; latest ${latest}`}
      />
    </figure>
  );
}
