/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * Where files come in: dropped on the zone (or anywhere on the page), chosen
 * with the picker, or pasted from the clipboard (a screenshot).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { Icon } from "../icons.tsx";

/** A paste's files; a pasted image with no name gets one. */
function pastedFiles(data: DataTransfer): File[] {
  return [...data.files].map((file) =>
    file.name && file.name !== "image.png"
      ? file
      : new File([file], `pasted-${Date.now()}.${file.type.split("/")[1] ?? "bin"}`, {
        type: file.type,
        lastModified: file.lastModified,
      })
  );
}

/** The drop zone; `onFiles` gets every file that arrives, however it came. */
export function DropZone({ onFiles }: { onFiles: (files: File[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  useEffect(() => {
    const paste = (event: ClipboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea")) return;
      const files = event.clipboardData ? pastedFiles(event.clipboardData) : [];
      if (files.length > 0) onFiles(files);
    };
    const drop = (event: DragEvent) => {
      event.preventDefault();
      setOver(false);
      const files = [...(event.dataTransfer?.files ?? [])];
      if (files.length > 0) onFiles(files);
    };
    const dragover = (event: DragEvent) => {
      if (!event.dataTransfer?.types.includes("Files")) return;
      event.preventDefault();
      setOver(true);
    };
    const dragleave = (event: DragEvent) => {
      if (event.relatedTarget === null) setOver(false);
    };
    addEventListener("paste", paste);
    addEventListener("drop", drop);
    addEventListener("dragover", dragover);
    addEventListener("dragleave", dragleave);
    return () => {
      removeEventListener("paste", paste);
      removeEventListener("drop", drop);
      removeEventListener("dragover", dragover);
      removeEventListener("dragleave", dragleave);
    };
  }, [onFiles]);

  return (
    <section class={over ? "drop-zone over" : "drop-zone"} aria-label="Upload files">
      <Icon name="upload" size={32} />
      <p>Drop files here, paste a screenshot, or</p>
      <button type="button" class="primary" onClick={() => input.current?.click()}>
        Choose files
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label="Files to upload"
        onChange={(event) => {
          const chosen = [...(event.currentTarget.files ?? [])];
          event.currentTarget.value = "";
          if (chosen.length > 0) onFiles(chosen);
        }}
      />
    </section>
  );
}
