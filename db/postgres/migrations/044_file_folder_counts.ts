/**
 * Counts of each folder's files (issue #32): a folder's page of the files
 * list needs its total, which the statistics do not hold, and counting it
 * read every entry of the folder's index (20,000 at one file in 50 of a
 * million: 20 ms warm, 48 ms cold, EXPLAIN ANALYZE). `file_folder_counts`
 * counts, per owner and folder, the complete files in it; `PostgresFiles.list`
 * reads it for a folder's list with no other filter (which then also reads a
 * page past the middle from the end).
 *
 * The counters move in the statement that writes the files, in the trigger
 * functions of migrations 036, 041 and 043 (made again here with this step
 * after theirs): an upload, an import, a completion, a deletion, a move
 * between folders, a folder's deletion (its files' `folder_id` set to NULL)
 * and an owner's deletion (`user_id` set to NULL). A statement moves one
 * counter a folder it touches; files in no folder move none. Counters that
 * reach 0 stay, as 0. The files already there are counted here.
 */
import { apply, blocks, counted, inBlocks } from "./041_file_time_blocks.ts";
import { inNameBlocks, nameBlocks } from "./043_file_name_blocks.ts";

/** `rows`' complete owned files per owner and folder, `sign` times their count. */
export const inFolders = (rows: string, sign: "" | "-") => `
      SELECT user_id AS owner, folder_id AS folder, ${sign}count(*) AS files
      FROM ${rows} WHERE NOT pending AND user_id IS NOT NULL AND folder_id IS NOT NULL
      GROUP BY 1, 2`;

/** The folder counts' step: the change of the statement's `parts`. */
export const folderCounts = (parts: string[]) => `
  INSERT INTO file_folder_counts AS f (owner, folder, files)
  SELECT owner, folder, sum(files)
  FROM (${parts.join("\n      UNION ALL")}) AS change
  GROUP BY owner, folder HAVING sum(files) <> 0
  ORDER BY owner, folder
  ON CONFLICT (owner, folder) DO UPDATE SET files = f.files + EXCLUDED.files;`;

export const sql = `
CREATE TABLE file_folder_counts (
  owner text NOT NULL,
  folder text NOT NULL,
  files bigint NOT NULL,
  PRIMARY KEY (owner, folder)
);
${
  apply(
    "file_counts_inserted",
    [counted("new_files", "")],
    blocks([inBlocks("new_files", "")]),
    nameBlocks([inNameBlocks("new_files", "")]),
    folderCounts([inFolders("new_files", "")]),
  )
}
${
  apply(
    "file_counts_deleted",
    [counted("old_files", "-")],
    blocks([inBlocks("old_files", "-")]),
    nameBlocks([inNameBlocks("old_files", "-")]),
    folderCounts([inFolders("old_files", "-")]),
  )
}
${
  apply(
    "file_counts_updated",
    [counted("new_files", ""), counted("old_files", "-")],
    blocks([inBlocks("new_files", ""), inBlocks("old_files", "-")]),
    nameBlocks([inNameBlocks("new_files", ""), inNameBlocks("old_files", "-")]),
    folderCounts([inFolders("new_files", ""), inFolders("old_files", "-")]),
  )
}
${folderCounts([inFolders("files", "")]).replace(/ON CONFLICT[^;]*/, "")}
`;
