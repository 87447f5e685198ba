/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/dashboard/tags`: the caller's tags with their colours (create, rename,
 * recolour, delete). (Invites have a page of their own,
 * `/dashboard/admin/invites`.)
 */
import { useState } from "preact/hooks";
import {
  changeTag,
  createTag,
  deleteTag,
  listTags,
  type Tag,
  type TagChange,
} from "../api/files.ts";
import { useLoad } from "../hooks.ts";
import { IconButton } from "../icons.tsx";
import { confirmAction, withToast } from "../components/feedback.tsx";

function TagRow({ tag, onChange }: { tag: Tag; onChange: (error?: string) => void }) {
  const [name, setName] = useState(tag.name);
  const save = async (body: TagChange) => {
    try {
      await changeTag(tag.id, body);
      onChange();
    } catch (e) {
      onChange((e as Error).message);
    }
  };
  const remove = async () => {
    const sure = await confirmAction({
      title: "Delete this tag?",
      message: `The tag ${tag.name} goes; the files that have it stay.`,
      confirm: "Delete",
      deletion: true,
    });
    if (
      sure &&
      await withToast(
        `Deleted the tag ${tag.name}.`,
        () => deleteTag(tag.id),
      )
    ) onChange();
  };
  return (
    <li class="tag-row">
      <input
        type="color"
        value={tag.color.length === 4
          ? `#${[...tag.color.slice(1)].map((c) => c + c).join("")}`
          : tag.color}
        aria-label={`Colour of ${tag.name}`}
        onChange={(e) => save({ color: e.currentTarget.value })}
      />
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          save({ name });
        }}
      >
        <input
          type="text"
          value={name}
          aria-label={`Name of ${tag.name}`}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        {name !== tag.name && <button type="submit">Rename</button>}
      </form>
      <span class="muted">{tag.files.length} {tag.files.length === 1 ? "file" : "files"}</span>
      <IconButton
        icon="trash"
        danger
        label={`Delete the tag ${tag.name}`}
        title="Delete"
        onClick={remove}
      />
    </li>
  );
}

/** A colour made from `name` (as Zipline's "colour from name"): the same name, the same colour. */
export function colorFromName(name: string): string {
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.codePointAt(0)!) | 0;
  const channel = (shift: number) => (((hash >>> shift) & 0xff) % 160 + 40).toString(16);
  return `#${channel(0).padStart(2, "0")}${channel(8).padStart(2, "0")}${
    channel(16).padStart(2, "0")
  }`;
}

function Tags() {
  const [tags, reload, loadError] = useLoad(listTags);
  const [name, setName] = useState("");
  const [color, setColor] = useState("#2456c7");
  const [error, setError] = useState<string | null>(null);
  const changed = (message?: string) => {
    setError(message ?? null);
    reload();
  };
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      await createTag({ name, color });
      setName("");
      changed();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="card" aria-labelledby="tags-title">
      <h2 id="tags-title">Tags</h2>
      <form class="inline-form" onSubmit={create} aria-label="New tag">
        <label class="field grow">
          <span>Tag name</span>
          <input
            type="text"
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label class="field">
          <span>Colour</span>
          <input type="color" value={color} onInput={(e) => setColor(e.currentTarget.value)} />
        </label>
        <button type="button" disabled={!name.trim()} onClick={() => setColor(colorFromName(name))}>
          Colour from name
        </button>
        <button type="submit" class="primary">Create tag</button>
      </form>
      {(error ?? loadError) && <p class="error" role="alert">{error ?? loadError}</p>}
      {tags && tags.length === 0 && <p class="muted">No tags yet.</p>}
      {tags && tags.length > 0 && (
        <ul class="tag-list" aria-label="Tags">
          {tags.map((tag) => <TagRow key={`${tag.id}:${tag.name}`} tag={tag} onChange={changed} />)}
        </ul>
      )}
    </section>
  );
}

/** The tags page. */
export function TagsPage() {
  return (
    <>
      <h1>Tags</h1>
      <Tags />
    </>
  );
}
