/**
 * Passkeys, challenges and TOTP steps on Deno KV. A passkey is one record
 * plus two index keys (by credential, by user) stored in one atomic
 * operation; the credential index is checked, so a credential registers once.
 */
import type { ChallengeRecord, MfaStore, PasskeyRecord } from "../mfa.ts";
import { UniqueError } from "../errors.ts";
import { commitChecked, getAll } from "./helpers.ts";

const K = {
  passkey: (id: string) => ["passkey", id],
  byCredential: (credentialId: string) => ["passkey_by_credential", credentialId],
  byUser: (userId: string) => ["passkey_by_user", userId],
  challenge: (id: string) => ["webauthn_challenge", id],
  totpStep: (userId: string) => ["totp_step", userId],
};

/** {@link MfaStore} on Deno KV. */
export class KvMfa implements MfaStore {
  constructor(private readonly kv: Deno.Kv) {}

  async createPasskey(p: PasskeyRecord): Promise<void> {
    const result = await this.kv.atomic()
      .check({ key: K.passkey(p.id), versionstamp: null })
      .check({ key: K.byCredential(p.credentialId), versionstamp: null })
      .set(K.passkey(p.id), p)
      .set(K.byCredential(p.credentialId), p.id)
      .set([...K.byUser(p.userId), p.id], true)
      .commit();
    if (!result.ok) throw new UniqueError("credentialId");
  }

  async listPasskeys(userId: string): Promise<PasskeyRecord[]> {
    const keys: Deno.KvKey[] = [];
    for await (const entry of this.kv.list({ prefix: K.byUser(userId) })) {
      keys.push(K.passkey(entry.key.at(-1) as string));
    }
    const passkeys: PasskeyRecord[] = [];
    for (const entry of await getAll<PasskeyRecord>(this.kv, keys)) {
      if (entry.value) passkeys.push(entry.value);
    }
    return passkeys.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  async getPasskeyByCredential(credentialId: string): Promise<PasskeyRecord | null> {
    const id = (await this.kv.get<string>(K.byCredential(credentialId))).value;
    return id === null ? null : (await this.kv.get<PasskeyRecord>(K.passkey(id))).value;
  }

  async recordPasskeyUse(id: string, counter: number, at: Date): Promise<void> {
    await commitChecked(async () => {
      const current = await this.kv.get<PasskeyRecord>(K.passkey(id));
      if (current.value === null) return { result: undefined };
      const next = { ...current.value, counter, lastUsed: at };
      return { op: this.kv.atomic().check(current).set(K.passkey(id), next), result: undefined };
    });
  }

  deletePasskey(userId: string, id: string): Promise<boolean> {
    return commitChecked(async () => {
      const current = await this.kv.get<PasskeyRecord>(K.passkey(id));
      if (current.value === null || current.value.userId !== userId) return { result: false };
      const op = this.kv.atomic().check(current)
        .delete(K.passkey(id))
        .delete(K.byCredential(current.value.credentialId))
        .delete([...K.byUser(userId), id]);
      return { op, result: true };
    });
  }

  /** Removes every passkey and the TOTP step of a user; `KvUsers.delete` (`users.ts`) calls it. */
  async deleteUserMfa(userId: string): Promise<void> {
    for (const passkey of await this.listPasskeys(userId)) {
      await this.deletePasskey(userId, passkey.id);
    }
    await this.kv.delete(K.totpStep(userId));
  }

  async putChallenge(challenge: ChallengeRecord, now: Date): Promise<void> {
    // KV drops it on its own a little after it expires; `takeChallenge` checks the time.
    const expireIn = Math.max(1, challenge.expiresAt.getTime() - now.getTime()) + 60_000;
    await this.kv.set(K.challenge(challenge.id), challenge, { expireIn });
  }

  async takeChallenge(id: string, now: Date): Promise<ChallengeRecord | null> {
    return await commitChecked<ChallengeRecord | null>(async () => {
      const current = await this.kv.get<ChallengeRecord>(K.challenge(id));
      if (current.value === null) return { result: null };
      return {
        op: this.kv.atomic().check(current).delete(K.challenge(id)),
        result: current.value.expiresAt > now ? current.value : null,
      };
    });
  }

  async acceptTotpStep(userId: string, step: number): Promise<boolean> {
    return await commitChecked(async () => {
      const current = await this.kv.get<number>(K.totpStep(userId));
      if (current.value !== null && current.value >= step) return { result: false };
      return { op: this.kv.atomic().check(current).set(K.totpStep(userId), step), result: true };
    });
  }
}
