/**
 * Passkeys, challenges and TOTP steps on PostgreSQL. Passkeys and TOTP steps
 * go with their user (`ON DELETE CASCADE`); taking a challenge is one
 * `DELETE … RETURNING`, accepting a step one conditional upsert.
 */
import type { Sql } from "postgres";
import type { ChallengeRecord, MfaStore, PasskeyRecord } from "../mfa.ts";
import { uniqueViolation } from "./unique.ts";

interface PasskeyRow {
  id: string;
  user_id: string;
  name: string;
  credential_id: string;
  public_key: Uint8Array;
  counter: number;
  transports: string[];
  created_at: Date;
  last_used: Date | null;
}

const toPasskey = (r: PasskeyRow): PasskeyRecord => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  credentialId: r.credential_id,
  publicKey: new Uint8Array(r.public_key),
  counter: r.counter,
  transports: r.transports,
  createdAt: r.created_at,
  lastUsed: r.last_used,
});

/** `counter` is a bigint column (WebAuthn counters are unsigned 32-bit); read it as a number. */
const PASSKEY_COLUMNS =
  "id, user_id, name, credential_id, public_key, counter::float8 AS counter, " +
  "transports, created_at, last_used";

/** {@link MfaStore} on PostgreSQL. */
export class PostgresMfa implements MfaStore {
  constructor(private readonly sql: Sql) {}

  async createPasskey(p: PasskeyRecord): Promise<void> {
    try {
      await this.sql`INSERT INTO passkeys ${
        this.sql({
          id: p.id,
          user_id: p.userId,
          name: p.name,
          credential_id: p.credentialId,
          public_key: p.publicKey,
          counter: p.counter,
          transports: this.sql.array(p.transports),
          created_at: p.createdAt,
          last_used: p.lastUsed,
        })
      }`;
    } catch (error) {
      throw uniqueViolation(error, "credentialId");
    }
  }

  async listPasskeys(userId: string): Promise<PasskeyRecord[]> {
    const rows = await this.sql<PasskeyRow[]>`
      SELECT ${this.sql.unsafe(PASSKEY_COLUMNS)} FROM passkeys WHERE user_id = ${userId}
      ORDER BY created_at, id`;
    return rows.map(toPasskey);
  }

  async getPasskeyByCredential(credentialId: string): Promise<PasskeyRecord | null> {
    const [row] = await this.sql<PasskeyRow[]>`
      SELECT ${this.sql.unsafe(PASSKEY_COLUMNS)} FROM passkeys
      WHERE credential_id = ${credentialId}`;
    return row ? toPasskey(row) : null;
  }

  async recordPasskeyUse(id: string, counter: number, at: Date): Promise<void> {
    await this.sql`UPDATE passkeys SET counter = ${counter}, last_used = ${at} WHERE id = ${id}`;
  }

  async deletePasskey(userId: string, id: string): Promise<boolean> {
    const result = await this.sql`DELETE FROM passkeys WHERE id = ${id} AND user_id = ${userId}`;
    return result.count > 0;
  }

  async putChallenge(c: ChallengeRecord): Promise<void> {
    await this.sql.begin(async (tx) => {
      // Sweeps challenges left over long ago, measured from this one's expiry (the caller's clock).
      await tx`DELETE FROM webauthn_challenges WHERE expires_at < ${c.expiresAt} - interval '1 hour'`;
      await tx`INSERT INTO webauthn_challenges ${
        tx({
          id: c.id,
          kind: c.kind,
          challenge: c.challenge,
          user_id: c.userId,
          rp_id: c.rpId,
          expires_at: c.expiresAt,
        })
      } ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, challenge = excluded.challenge,
        user_id = excluded.user_id, rp_id = excluded.rp_id, expires_at = excluded.expires_at`;
    });
  }

  async takeChallenge(id: string, now: Date): Promise<ChallengeRecord | null> {
    const [row] = await this.sql<
      {
        id: string;
        kind: ChallengeRecord["kind"];
        challenge: string;
        user_id: string | null;
        rp_id: string;
        expires_at: Date;
      }[]
    >`DELETE FROM webauthn_challenges WHERE id = ${id} RETURNING *`;
    if (!row || row.expires_at <= now) return null;
    return {
      id: row.id,
      kind: row.kind,
      challenge: row.challenge,
      userId: row.user_id,
      rpId: row.rp_id,
      expiresAt: row.expires_at,
    };
  }

  async acceptTotpStep(userId: string, step: number): Promise<boolean> {
    const rows = await this.sql`
      INSERT INTO totp_steps (user_id, step) VALUES (${userId}, ${step})
      ON CONFLICT (user_id) DO UPDATE SET step = excluded.step WHERE totp_steps.step < excluded.step
      RETURNING user_id`;
    return rows.length > 0;
  }
}
