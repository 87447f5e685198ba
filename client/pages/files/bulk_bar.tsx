/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * What to do with the selected files: favourite, move, tag, zip, delete.
 * The selection is the ticked files, or every file matching the search
 * across all its pages ("Select all N matching"), fetched when an action runs.
 */
import { useState } from "preact/hooks";
import {
  allMatching,
  type ApiFile,
  changeFile,
  changeFiles,
  deleteFiles,
  type Folder,
  type Tag,
  zipUrl,
} from "../../api/files.ts";
import { Field, SelectField } from "../../components/field.tsx";
import { confirmAction, withToast } from "../../components/feedback.tsx";
import { apiQuery, type FilesQuery } from "./use_files.ts";

/** The selection: ticked files (by id, with the records seen) or all matching the query. */
export interface Selection {
  ids: Set<string>;
  seen: Map<string, ApiFile>;
  allMatching: boolean;
}

/** The records of the selection (all pages' when it is "all matching"). */
async function selectedFiles(selection: Selection, query: FilesQuery): Promise<ApiFile[]> {
  if (selection.allMatching) return await allMatching(apiQuery(query));
  return [...selection.ids].map((id) => selection.seen.get(id)!).filter(Boolean);
}

/** Runs `work` on at most four files at a time. */
async function eachLimited(files: ApiFile[], work: (file: ApiFile) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < files.length) await work(files[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(4, files.length) }, worker));
}

/** The bulk bar. */
export function BulkBar(
  { selection, total, pageCount, query, tags, folders, selectAll, clear, done }: {
    selection: Selection;
    /** How many files match the query. */
    total: number;
    /** How many files the page shows. */
    pageCount: number;
    query: FilesQuery;
    tags: Tag[];
    folders: Folder[];
    selectAll: () => void;
    clear: () => void;
    done: () => void;
  },
) {
  const [moveTo, setMoveTo] = useState("");
  const count = selection.allMatching ? total : selection.ids.size;
  if (count === 0) return null;
  const noun = `${count} ${count === 1 ? "file" : "files"}`;
  const run = async (message: string, action: (files: ApiFile[]) => Promise<unknown>) => {
    const ok = await withToast(message, async () => action(await selectedFiles(selection, query)));
    if (ok) {
      clear();
      done();
    }
  };
  const ids = (files: ApiFile[]) => files.map((f) => f.id);
  return (
    <div class="bulk" role="region" aria-label="Selected files">
      <span>{selection.allMatching ? `All ${noun} selected` : `${noun} selected`}</span>
      {!selection.allMatching && selection.ids.size >= pageCount && total > pageCount && (
        <button type="button" class="link" onClick={selectAll}>
          Select all {total} matching
        </button>
      )}
      <button
        type="button"
        onClick={() => run(`Favourited ${noun}.`, (f) => changeFiles(ids(f), { favorite: true }))}
      >
        Favourite
      </button>
      <button
        type="button"
        onClick={() =>
          run(`Unfavourited ${noun}.`, (f) => changeFiles(ids(f), { favorite: false }))}
      >
        Unfavourite
      </button>
      <button
        type="button"
        onClick={() => run(`Made ${noun} private.`, (f) => changeFiles(ids(f), { private: true }))}
      >
        Make private
      </button>
      <button
        type="button"
        onClick={() => run(`Made ${noun} public.`, (f) => changeFiles(ids(f), { private: false }))}
      >
        Make public
      </button>
      <button
        type="button"
        class="danger"
        onClick={async () => {
          const sure = await confirmAction({
            title: `Delete ${noun}?`,
            message: "The selected files and their links go for good.",
            confirm: "Delete",
            deletion: true,
          });
          if (sure) await run(`Deleted ${noun}.`, (f) => deleteFiles(ids(f)));
        }}
      >
        Delete selected
      </button>
      {!selection.allMatching && (
        <a class="button" href={zipUrl([...selection.ids])} download>Download as zip</a>
      )}
      {folders.length > 0 && (
        <form
          class="inline-form"
          aria-label="Move the selected files"
          onSubmit={(e) => {
            e.preventDefault();
            if (moveTo) run(`Moved ${noun}.`, (f) => changeFiles(ids(f), { folder: moveTo }));
          }}
        >
          <SelectField
            label="Folder"
            value={moveTo}
            onValue={setMoveTo}
            options={[["", "Choose…"], ...folders.map((f) => [f.id, f.name] as const)]}
          />
          <button type="submit" disabled={!moveTo}>Move</button>
        </form>
      )}
      {tags.length > 0 && (
        <Field
          label="Add a tag"
          control={(id) => (
            <select
              id={id}
              value=""
              onChange={(e) => {
                const tag = e.currentTarget.value;
                if (!tag) return;
                // One request a file: the API sets a file's tags whole.
                run(`Tagged ${noun}.`, (files) =>
                  eachLimited(files, (f) =>
                    changeFile(f.id, {
                      tags: [...new Set([...(f.tags ?? []).map((t) => t.id), tag])],
                    })));
              }}
            >
              <option value="">Choose…</option>
              {tags.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
            </select>
          )}
        />
      )}
      <button type="button" onClick={clear}>Clear</button>
    </div>
  );
}
