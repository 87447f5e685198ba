/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The frame of the dashboard's panels (a file's panel, the share dialog): a
 * modal `<dialog>` opened when it mounts and closed when it goes, titled by
 * its heading, with focus kept inside, Escape and the Close button calling
 * `onClose`, and room for more buttons beside the title.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { Icon } from "../icons.tsx";
import { trapFocus } from "./feedback.tsx";

/** A modal panel: `title` in its head with `actions` beside it, `children` below. */
export function PanelDialog(
  { id, class: className, title, actions, onClose, children }: {
    /** The heading's id (the dialog is labelled by it). */
    id: string;
    class?: string;
    title: ComponentChildren;
    actions?: ComponentChildren;
    onClose: () => void;
    children: ComponentChildren;
  },
) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      class={className ? `file-panel ${className}` : "file-panel"}
      aria-labelledby={id}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onKeyDown={(e) => trapFocus(e, dialog.current)}
    >
      <div class="panel-head">
        <h2 id={id}>{title}</h2>
        {actions}
        <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
          <Icon name="close" />
        </button>
      </div>
      {children}
    </dialog>
  );
}
