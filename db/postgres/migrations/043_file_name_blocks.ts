/**
 * Block counts of the files list's name order (issue #32), as migration 041's
 * are of the newest-first order: a deep page sorted by name (either
 * direction) finds where it starts from a few dozen counters instead of
 * skipping every index entry before it (300,000 of them at page 20,000 of a
 * million). `file_name_blocks` counts, per owner, the complete files whose
 * name starts with each character (compared as code points, `COLLATE "C"`,
 * the list's order): all the names of a block are contiguous in the order,
 * and the blocks' order is their characters'. The page is then read from its
 * block's edge, skipping only the names of that block before it
 * (`../file_name_blocks.ts`): at a million random names (36 characters) about
 * 28,000 a block. Names that share their first character (a date, an original
 * name) fill few blocks, which a page then walks, as before.
 *
 * One level only, by design: a first try (reverted) also counted blocks of two
 * characters, which a statement of 1,000 random names moved some 900 counters
 * of; one character moves at most a few dozen, whatever the statement.
 *
 * The counters move in the statement that writes the files, in the trigger
 * functions of migrations 036 and 041 (made again here with this step after
 * theirs); a rename moves a file between blocks. The files already there are
 * counted here, in this migration's transaction.
 */
import { applyCounters, type CounterStep, timeBlockCounter } from "./041_file_time_blocks.ts";

/** `rows`' complete owned files per owner and first character, `sign` times their count. */
const inNameBlocks = (rows: string, sign: "" | "-") => `
      SELECT user_id AS owner, left(name, 1) COLLATE "C" AS block, ${sign}count(*) AS files
      FROM ${rows} WHERE NOT pending AND user_id IS NOT NULL GROUP BY 1, 2`;

/** The name blocks' step: the change of the statement's `parts`. */
const nameBlocks = (parts: string[]) => `
  INSERT INTO file_name_blocks AS b (owner, block, files)
  SELECT owner, block, sum(files)
  FROM (${parts.join("\n      UNION ALL")}) AS change
  GROUP BY owner, block HAVING sum(files) <> 0
  ORDER BY owner, block
  ON CONFLICT (owner, block) DO UPDATE SET files = b.files + EXCLUDED.files;`;

/** This migration's counter: the name blocks. */
export const nameBlockCounter: CounterStep = { step: nameBlocks, part: inNameBlocks };

export const sql = `
CREATE TABLE file_name_blocks (
  owner text NOT NULL,
  block text COLLATE "C" NOT NULL,
  files bigint NOT NULL,
  PRIMARY KEY (owner, block)
);
${applyCounters([timeBlockCounter, nameBlockCounter])}
${nameBlocks([inNameBlocks("files", "")]).replace(/ON CONFLICT[^;]*/, "")}
`;
