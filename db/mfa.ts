/**
 * Multi-factor state: users' passkeys, the single-use WebAuthn challenges of
 * ceremonies in flight, and the last TOTP time step each user had accepted.
 * All of it lives in the store, so a ceremony begun on one server process can
 * be finished on another, and a TOTP code is accepted once across all of them.
 */

/** A registered passkey. `publicKey` and `counter` never leave the server. */
export interface PasskeyRecord {
  id: string;
  userId: string;
  name: string;
  /** The WebAuthn credential id, base64url; unique across users. */
  credentialId: string;
  /** The COSE public key. */
  publicKey: Uint8Array;
  /** The signature counter last seen. */
  counter: number;
  transports: string[];
  createdAt: Date;
  lastUsed: Date | null;
}

/** A WebAuthn challenge waiting for its response. */
export interface ChallengeRecord {
  id: string;
  kind: "registration" | "authentication";
  /** The challenge sent to the browser, base64url. */
  challenge: string;
  /** Who is registering; `null` for a passwordless login. */
  userId: string | null;
  /** The RP ID the options named. */
  rpId: string;
  expiresAt: Date;
}

/**
 * Passkeys, challenges and TOTP replay protection. Deleting a user through
 * the {@link Store} removes its passkeys and TOTP state too.
 */
export interface MfaStore {
  /** Adds a passkey; throws `UniqueError("credentialId")` when the credential is known. */
  createPasskey(passkey: PasskeyRecord): Promise<void>;
  /** A user's passkeys, oldest first. */
  listPasskeys(userId: string): Promise<PasskeyRecord[]>;
  /** The passkey holding this credential id, or `null`. */
  getPasskeyByCredential(credentialId: string): Promise<PasskeyRecord | null>;
  /** Records a successful sign-in: the new counter and when. */
  recordPasskeyUse(id: string, counter: number, at: Date): Promise<void>;
  /** Removes the user's passkey `id`; `false` when the user has no such passkey. */
  deletePasskey(userId: string, id: string): Promise<boolean>;

  /** Stores a challenge at `now`, replacing one with the same id. */
  putChallenge(challenge: ChallengeRecord, now: Date): Promise<void>;
  /**
   * Removes the challenge `id` and returns it, or `null` when there is none or
   * it expired before `now`. Atomic: of concurrent takers, one gets it.
   */
  takeChallenge(id: string, now: Date): Promise<ChallengeRecord | null>;

  /**
   * Accepts TOTP time step `step` for the user when it is later than the last
   * one accepted, and remembers it; `false` otherwise. Atomic, so one code
   * cannot pass twice, even in concurrent requests.
   */
  acceptTotpStep(userId: string, step: number): Promise<boolean>;
}
