/**
 * What every Lucide icon of Ferry's pages is drawn with, shared by the
 * server's frame (`routes/web/icons.tsx`, hono/jsx) and the dashboard
 * (`client/icons.tsx`, Preact): the `<svg>` attributes (decorative, at the
 * text's colour) and the icon's child elements.
 */
import type { IconNode } from "lucide";

/** The `<svg>` attributes of an icon `size` pixels wide and high. */
export function svgAttributes(size: number) {
  return {
    xmlns: "http://www.w3.org/2000/svg",
    width: size,
    height: size,
    viewBox: "0 0 24 24",
    fill: "none",
    stroke: "currentColor",
    "stroke-width": "2",
    "stroke-linecap": "round",
    "stroke-linejoin": "round",
    "aria-hidden": "true",
    focusable: "false",
    class: "icon",
  } as const;
}

/** The child elements of `node`: tag name (drawn as a `path`-like element) and attributes. */
export function svgChildren(node: IconNode): [tag: "path", attrs: Record<string, string>][] {
  return node.map(([tag, attrs]) => [tag as "path", attrs as Record<string, string>]);
}
