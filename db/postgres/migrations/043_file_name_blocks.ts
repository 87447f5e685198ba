/**
 * Block counts of the files list's name order (issue #32), as migration 041's
 * are of the newest-first order: a deep page sorted by name (either
 * direction) finds where it starts from a few hundred counters instead of
 * skipping every index entry before it. `file_name_blocks` counts, per owner,
 * the complete files whose name starts with each prefix (characters, compared
 * as code points, `COLLATE "C"`, the list's order): level 0, the first two
 * characters; level 1, the first one. A name of one character is its own
 * block at both levels. All the names of a block are contiguous in the order,
 * and the blocks' order is their prefixes' (`./file_name_blocks.ts`). Names
 * that share longer prefixes (a date, an original name) fill few blocks,
 * which a page then walks, as before.
 *
 * The counters move in the statement that writes the files, in the trigger
 * functions of migrations 036 and 041 (made again here with this step after
 * theirs); a rename moves a file between blocks. The files already there are
 * counted here.
 */
import { apply, blocks, counted, inBlocks } from "./041_file_time_blocks.ts";

/** `rows`' complete owned files per owner and two-character prefix, `sign` times their count. */
const inNameBlocks = (rows: string, sign: "" | "-") => `
      SELECT user_id AS owner, left(name, 2) COLLATE "C" AS block, ${sign}count(*) AS files
      FROM ${rows} WHERE NOT pending AND user_id IS NOT NULL GROUP BY 1, 2`;

/** The name blocks' step: the change of the statement's `parts`, at both levels. */
const nameBlocks = (parts: string[]) => `
  WITH fine AS (${parts.join("\n      UNION ALL")})
  INSERT INTO file_name_blocks AS b (owner, level, block, files)
  SELECT owner, level, block, sum(files)
  FROM (
    SELECT owner, 0 AS level, block, files FROM fine
    UNION ALL SELECT owner, 1, left(block, 1) COLLATE "C", files FROM fine
  ) AS change
  GROUP BY owner, level, block HAVING sum(files) <> 0
  ORDER BY owner, level, block
  ON CONFLICT (owner, level, block) DO UPDATE SET files = b.files + EXCLUDED.files;`;

export const sql = `
CREATE TABLE file_name_blocks (
  owner text NOT NULL,
  level smallint NOT NULL,
  block text COLLATE "C" NOT NULL,
  files bigint NOT NULL,
  PRIMARY KEY (owner, level, block)
);
${
  apply(
    "file_counts_inserted",
    [counted("new_files", "")],
    blocks([inBlocks("new_files", "")]),
    nameBlocks([inNameBlocks("new_files", "")]),
  )
}
${
  apply(
    "file_counts_deleted",
    [counted("old_files", "-")],
    blocks([inBlocks("old_files", "-")]),
    nameBlocks([inNameBlocks("old_files", "-")]),
  )
}
${
  apply(
    "file_counts_updated",
    [counted("new_files", ""), counted("old_files", "-")],
    blocks([inBlocks("new_files", ""), inBlocks("old_files", "-")]),
    nameBlocks([inNameBlocks("new_files", ""), inNameBlocks("old_files", "-")]),
  )
}
${nameBlocks([inNameBlocks("files", "")]).replace(/ON CONFLICT[^;]*/, "")}
`;
