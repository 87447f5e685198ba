/**
 * Trigram indexes for the files search (issue #32): `pg_trgm`'s GIN indexes
 * on the lower-cased name, original name and type, which a search's
 * `lower(column) LIKE '%…%'` (`../files.ts`) reads instead of every file of
 * the owner. `pg_trgm` ships with Debian's `postgresql` package (the
 * contrib modules are part of `postgresql-15`) and is a trusted extension, so
 * the database's owner may create it. Where it cannot be created (a server
 * without the contrib modules), the migration leaves a notice and no index:
 * the search gives the same answers, reading every file of the owner. The
 * tag search already reads `file_tags`' primary key (`010_folders_tags.ts`).
 */
export const sql = `
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): the files search reads every file', SQLERRM;
END $$;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX files_search_name ON files USING gin (lower(name) gin_trgm_ops);
    CREATE INDEX files_search_original_name ON files USING gin (lower(original_name) gin_trgm_ops);
    CREATE INDEX files_search_type ON files USING gin (lower(type) gin_trgm_ops);
  END IF;
END $$;
`;
