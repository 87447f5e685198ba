/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** A folder choice with "Create a folder" in place (the upload options, a file's panel). */
import { useEffect, useState } from "preact/hooks";
import { createFolder, type Folder, listFolders } from "../api/files.ts";
import { SelectField, TextField } from "./field.tsx";
import { toast } from "./feedback.tsx";

/** The folder `value` (`""`: none), told to `onValue`; a new folder is chosen once made. */
export function FolderPicker(
  { value, onValue, label = "Folder" }: {
    value: string;
    onValue: (id: string) => void;
    label?: string;
  },
) {
  const [folders, setFolders] = useState<Folder[]>([]);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  useEffect(() => {
    listFolders().then(setFolders, () => {});
  }, []);
  const create = async () => {
    if (!name.trim()) return;
    try {
      const folder = await createFolder({ name: name.trim() });
      setFolders([folder, ...folders]);
      onValue(folder.id);
      setCreating(false);
      setName("");
      toast(`Folder ${folder.name} created.`);
    } catch (error) {
      toast((error as Error).message, "error");
    }
  };
  return (
    <div class="folder-field">
      <SelectField
        label={label}
        value={value}
        onValue={onValue}
        options={[["", "None"], ...folders.map((f) => [f.id, f.name] as const)]}
      />
      {creating
        ? (
          <div class="inline-create">
            <TextField label="New folder's name" type="text" value={name} onValue={setName} />
            <button type="button" onClick={create} disabled={!name.trim()}>Create</button>
            <button type="button" onClick={() => setCreating(false)}>Cancel</button>
          </div>
        )
        : (
          <button type="button" class="link" onClick={() => setCreating(true)}>
            Create a folder
          </button>
        )}
    </div>
  );
}
