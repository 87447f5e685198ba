/**
 * Sessions remember how they were signed in (`password`, `passkey`, `oauth`):
 * a fresh session proves the owner only through a factor the account relies
 * on (`core/confirm.ts`). Sessions from before are `unknown`, which proves
 * nothing.
 */
export const sql = `
ALTER TABLE sessions ADD COLUMN method text NOT NULL DEFAULT 'unknown';
`;
