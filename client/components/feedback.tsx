/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The dashboard's feedback: toasts in the corner (`role="status"` for what
 * was done, `role="alert"` for what failed), and the question a destructive
 * action asks first, in a modal of the dashboard (a `<dialog>` opened with
 * `showModal()`: the page behind is inert, so focus stays in it; Escape and
 * "Cancel" close it; its title and message label it). A deletion does not
 * ask when the user turned "Warn on deletion" off (`/api/user/preferences`).
 */
import { render } from "preact";
import { signal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { Icon } from "../icons.tsx";

/** One toast. */
interface Toast {
  id: number;
  text: string;
  kind: "ok" | "error";
}

const toasts = signal<Toast[]>([]);
let nextToast = 1;

/** How long a toast stays: a failure longer, to be read. */
const TOAST_MS = { ok: 5000, error: 9000 };

/** Shows `text` as a toast: a confirmation, or with `kind: "error"` an alert. */
export function toast(text: string, kind: "ok" | "error" = "ok"): void {
  const id = nextToast++;
  toasts.value = [...toasts.value.slice(-3), { id, text, kind }];
  setTimeout(() => dismiss(id), TOAST_MS[kind]);
}

function dismiss(id: number) {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

/**
 * Runs `action`; a toast says `done` when it succeeds, or the failure's
 * message when it throws. Resolves to whether it succeeded.
 */
export async function withToast(done: string, action: () => Promise<unknown>): Promise<boolean> {
  try {
    await action();
    toast(done);
    return true;
  } catch (e) {
    toast((e as Error).message, "error");
    return false;
  }
}

/**
 * An outcome shown as a toast when it changes (a confirmation, or with
 * `ok: false` an alert); it draws nothing where it stands.
 */
export function Notice({ message }: { message: { ok: boolean; text: string } | null }) {
  useEffect(() => {
    if (message) toast(message.text, message.ok ? "ok" : "error");
  }, [message]);
  return null;
}

function Toasts() {
  return (
    <>
      {toasts.value.map((t) => (
        <div
          key={t.id}
          class={t.kind === "error" ? "toast error" : "toast"}
          role={t.kind === "error" ? "alert" : "status"}
        >
          <Icon name={t.kind === "error" ? "alert" : "check"} />
          <p>{t.text}</p>
          <button type="button" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            <Icon name="close" size={16} />
          </button>
        </div>
      ))}
    </>
  );
}

/** What a confirmation asks. */
export interface Question {
  title: string;
  message: string;
  /** The confirming button's text ("Delete"). */
  confirm: string;
  /** A deletion: skipped when the user turned "Warn on deletion" off. */
  deletion?: boolean;
}

const asking = signal<{ question: Question; answer: (yes: boolean) => void } | null>(null);

/** Whether deletions ask first: the user's preference, set when the page starts and when changed. */
export const warnDeletion = signal(true);

/** Asks `question` in the dashboard's modal; resolves to whether the person confirmed. */
export function confirmAction(question: Question): Promise<boolean> {
  if (question.deletion && !warnDeletion.value) return Promise.resolve(true);
  asking.value?.answer(false);
  return new Promise((resolve) => {
    asking.value = { question, answer: resolve };
  });
}

/** Keeps Tab and Shift+Tab cycling among the controls of `container`. */
export function trapFocus(event: KeyboardEvent, container: HTMLElement | null): void {
  if (event.key !== "Tab" || !container) return;
  const controls = [...container.querySelectorAll<HTMLElement>(
    "button:not([disabled]), a[href], input:not([disabled]), select:not([disabled]), " +
      "textarea:not([disabled]), [tabindex]:not([tabindex='-1'])",
  )];
  if (controls.length === 0) return;
  const first = controls[0], last = controls[controls.length - 1];
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !container.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !container.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

function ConfirmDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  const current = asking.value;
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (current && !d.open) {
      d.showModal();
      d.querySelector<HTMLButtonElement>("button.cancel")?.focus();
    }
    if (!current && d.open) d.close();
  }, [current]);
  const answer = (yes: boolean) => {
    current?.answer(yes);
    asking.value = null;
  };
  return (
    <dialog
      ref={dialog}
      class="confirm-dialog"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-message"
      onCancel={(e) => {
        e.preventDefault();
        answer(false);
      }}
      onKeyDown={(e) => trapFocus(e, dialog.current)}
    >
      {current && (
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            answer(true);
          }}
        >
          <h2 id="confirm-title">{current.question.title}</h2>
          <p id="confirm-message">{current.question.message}</p>
          <div class="button-row">
            <button type="button" class="cancel secondary" onClick={() => answer(false)}>
              Cancel
            </button>
            <button type="submit" class={current.question.deletion ? "danger-fill" : undefined}>
              {current.question.confirm}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

/** Mounts the toasts in the frame's `#toasts` region and the confirmation modal in the body. */
export function mountFeedback(): void {
  const region = document.getElementById("toasts");
  if (region) render(<Toasts />, region);
  const host = document.createElement("div");
  document.body.append(host);
  render(<ConfirmDialog />, host);
}
