/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** One file's controls (favourite, copy, open, delete) and its selection box. */
import { type ApiFile, changeFile, deleteFile } from "../../api/files.ts";
import { Icon, IconButton } from "../../icons.tsx";
import { CopyButton } from "../../components/copy_button.tsx";
import { confirmAction, withToast } from "../../components/feedback.tsx";

/** The absolute link of a file. */
export function link(file: ApiFile): string {
  return new URL(file.url, location.origin).href;
}

/** Asks, then deletes `file`; whether it went. */
export async function confirmDelete(file: ApiFile): Promise<boolean> {
  const sure = await confirmAction({
    title: "Delete this file?",
    message: `${file.name} and its link go for good.`,
    confirm: "Delete",
    deletion: true,
  });
  return sure && await withToast(`Deleted ${file.name}.`, () => deleteFile(file.id));
}

/** One file's controls. */
export function FileActions({ file, onChange }: { file: ApiFile; onChange: () => void }) {
  const favorite = async () => {
    await changeFile(file.id, { favorite: !file.favorite });
    onChange();
  };
  return (
    <div class="actions">
      <button
        type="button"
        class={file.favorite ? "icon-button active" : "icon-button"}
        aria-pressed={file.favorite}
        aria-label={`Favourite ${file.name}`}
        title="Favourite"
        onClick={favorite}
      >
        <Icon name="star" />
      </button>
      <CopyButton text={link(file)} label={`Copy link to ${file.name}`} />
      <a
        class="icon-button"
        href={file.url}
        target="_blank"
        rel="noopener"
        aria-label={`Open ${file.name}`}
        title="Open"
      >
        <Icon name="open" />
      </a>
      <IconButton
        icon="trash"
        danger
        label={`Delete ${file.name}`}
        title="Delete"
        onClick={async () => (await confirmDelete(file)) && onChange()}
      />
    </div>
  );
}

/** The check box that selects a file for a bulk action. */
export function SelectBox(
  { file, selected, toggle }: { file: ApiFile; selected: boolean; toggle: () => void },
) {
  return (
    <input
      type="checkbox"
      checked={selected}
      onChange={toggle}
      aria-label={`Select ${file.name}`}
    />
  );
}
