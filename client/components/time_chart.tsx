/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A line chart of numbers over time, drawn by uPlot on a canvas in the
 * page's colours (read from the stylesheet, so dark and light both work) and
 * redrawn when the theme or the width changes.
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

/** The chart of `lines` over `times` (ms), labelled `title`; `format` writes the axis values. */
export function TimeChart(
  { title, times, lines, format }: {
    title: string;
    times: number[];
    lines: Line[];
    format?: (value: number) => string;
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
          cursor: { show: false },
          scales: { x: { time: true } },
          axes: [
            axis,
            {
              ...axis,
              size: 60,
              values: (_u, ticks) => ticks.map((v) => format ? format(v) : String(v)),
            },
          ],
          series: [
            {},
            ...lines.map((line, i) => ({
              label: line.label,
              stroke: cssColour(LINE_COLOURS[i % LINE_COLOURS.length]),
              width: 2,
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
  }, [times, lines]);
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
      <div ref={box} class="chart-canvas" role="img" aria-label={`Chart: ${title}`} />
    </figure>
  );
}
