/** Private files and folders: served to nobody but their owner (and through share links). */
export const sql = `
ALTER TABLE files ADD COLUMN private boolean NOT NULL DEFAULT false;
ALTER TABLE folders ADD COLUMN private boolean NOT NULL DEFAULT false;
`;
