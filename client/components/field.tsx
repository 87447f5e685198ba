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

/** A labelled text-like input (`type` text, password, number…) bound to a string value. */
export function TextField(
  { label, value, onValue, ...input }: {
    label: string;
    value: string;
    onValue: (value: string) => void;
    type: "text" | "password" | "number" | "url" | "email";
    placeholder?: string;
    required?: boolean;
    autocomplete?: string;
    min?: number;
  },
) {
  return (
    <label class="field">
      <span>{label}</span>
      <input
        {
          // The attributes are a plain subset; Preact types each input type apart.
          ...input as Record<string, unknown>
        }
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
    </label>
  );
}

/** A labelled `<select>` of `[value, text]` options bound to a string value. */
export function SelectField(
  { label, value, onValue, options, class: extra }: {
    label: string;
    value: string;
    onValue: (value: string) => void;
    options: readonly (readonly [string, string])[];
    class?: string;
  },
) {
  return (
    <Field
      label={label}
      class={extra}
      control={(id) => (
        <select
          id={id}
          value={value}
          onChange={(e) => onValue(e.currentTarget.value)}
        >
          {options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
        </select>
      )}
    />
  );
}
