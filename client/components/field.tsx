/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A labelled control whose label is tied by id rather than by nesting: a
 * nested `<select>` would lend its options' text to its own accessible name.
 */
import type { VNode } from "preact";
import { useId } from "preact/hooks";

/** `label` above the control `control(id)` renders with that id. */
export function Field(
  { label, class: extra, control }: {
    label: string;
    class?: string;
    control: (id: string) => VNode;
  },
) {
  const id = useId();
  return (
    <div class={extra ? `field ${extra}` : "field"}>
      <label for={id}>{label}</label>
      {control(id)}
    </div>
  );
}
