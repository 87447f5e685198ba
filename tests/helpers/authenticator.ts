/**
 * A software WebAuthn authenticator for API tests: an ES256 key made with
 * WebCrypto, `none` attestation, and real CBOR attestation objects,
 * authenticator data and client data, as a browser would send them.
 */
import { base64url } from "../../core/secrets.ts";

const encoder = new TextEncoder();

/** A CBOR value this encoder writes (RFC 8949, the subset WebAuthn uses). */
type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/** Encodes `value` as CBOR. */
export function cbor(value: Cbor): Uint8Array {
  if (typeof value === "number") {
    return new Uint8Array(value >= 0 ? head(0, value) : head(1, -1 - value));
  }
  if (typeof value === "string") {
    const bytes = encoder.encode(value);
    return concat(new Uint8Array(head(3, bytes.length)), bytes);
  }
  if (value instanceof Uint8Array) return concat(new Uint8Array(head(2, value.length)), value);
  const parts: Uint8Array[] = [new Uint8Array(head(5, value.size))];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return concat(...parts);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice()));
}

/** A raw `r || s` P-256 signature as the DER `ECDSA-Sig-Value` WebAuthn carries. */
function derSignature(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.slice(i);
    const body = trimmed[0] & 0x80 ? concat(new Uint8Array([0]), trimmed) : trimmed;
    return concat(new Uint8Array([0x02, body.length]), body);
  };
  const seq = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(new Uint8Array([0x30, seq.length]), seq);
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

/** What a ceremony is performed with; `origin` and `rpId` default to the authenticator's. */
export interface CeremonyOptions {
  origin?: string;
  rpId?: string;
  /** Overrides the counter the authenticator would report. */
  counter?: number;
}

/** One credential on a software authenticator. */
export class SoftAuthenticator {
  /** The credential id. */
  readonly credentialId = crypto.getRandomValues(new Uint8Array(16));
  /** Signatures made so far (the authenticator's counter). */
  counter = 0;
  /** The user handle of the credential, set at registration. */
  userHandle = "";

  private constructor(
    private readonly keys: CryptoKeyPair,
    /** The origin the browser is on. */
    readonly origin: string,
    /** The RP ID the credential is for. */
    readonly rpId: string,
  ) {}

  /** A new authenticator with a fresh ES256 key. */
  static async create(origin: string, rpId: string): Promise<SoftAuthenticator> {
    const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
      "sign",
      "verify",
    ]);
    return new SoftAuthenticator(keys, origin, rpId);
  }

  /** The credential id, base64url. */
  get id(): string {
    return base64url(this.credentialId);
  }

  private async authData(rpId: string, flags: number, counter: number, attested?: Uint8Array) {
    const count = new Uint8Array(4);
    new DataView(count.buffer).setUint32(0, counter);
    return concat(
      await sha256(encoder.encode(rpId)),
      new Uint8Array([flags]),
      count,
      attested ?? new Uint8Array(),
    );
  }

  private clientData(type: string, challenge: string, origin: string): Uint8Array {
    return encoder.encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** Answers registration options as `navigator.credentials.create()` would. */
  async register(
    // deno-lint-ignore no-explicit-any
    options: any,
    ceremony: CeremonyOptions = {},
  ): Promise<Record<string, unknown>> {
    this.userHandle = options.user.id;
    const jwk = await crypto.subtle.exportKey("jwk", this.keys.publicKey);
    const coseKey = cbor(
      new Map<number, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, fromBase64url(jwk.x!)],
        [-3, fromBase64url(jwk.y!)],
      ]),
    );
    const idLength = new Uint8Array([0, this.credentialId.length]);
    const attested = concat(new Uint8Array(16), idLength, this.credentialId, coseKey);
    const authData = await this.authData(
      ceremony.rpId ?? this.rpId,
      FLAG_UP | FLAG_UV | FLAG_AT,
      ceremony.counter ?? this.counter,
      attested,
    );
    const attestationObject = cbor(
      new Map<string, Cbor>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]),
    );
    const clientData = this.clientData(
      "webauthn.create",
      options.challenge,
      ceremony.origin ?? this.origin,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: base64url(clientData),
        attestationObject: base64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** Answers authentication options as `navigator.credentials.get()` would; counts a use. */
  async authenticate(
    // deno-lint-ignore no-explicit-any
    options: any,
    ceremony: CeremonyOptions = {},
  ): Promise<Record<string, unknown>> {
    this.counter++;
    const authData = await this.authData(
      ceremony.rpId ?? this.rpId,
      FLAG_UP | FLAG_UV,
      ceremony.counter ?? this.counter,
    );
    const clientData = this.clientData(
      "webauthn.get",
      options.challenge,
      ceremony.origin ?? this.origin,
    );
    const signed = concat(authData, await sha256(clientData));
    const raw = await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      this.keys.privateKey,
      signed.slice(),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: base64url(clientData),
        authenticatorData: base64url(authData),
        signature: base64url(derSignature(new Uint8Array(raw))),
        userHandle: this.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
