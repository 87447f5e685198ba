/**
 * Passkeys (`data.userPasskeys`), in Zipline's current `reg.webauthn` shape.
 * Older Zipline registrations (raw WebAuthn JSON) cannot sign anyone in on a
 * current server either; they are skipped.
 */
import { z } from "zod";
import { base64url } from "../../secrets.ts";
import { IsoDate, type V4Kind } from "../context.ts";

const PasskeyV4 = z.object({
  id: z.string(),
  createdAt: IsoDate,
  lastUsed: IsoDate.nullable(),
  name: z.string(),
  reg: z.record(z.string(), z.unknown()),
  userId: z.string(),
});
type PasskeyV4 = z.infer<typeof PasskeyV4>;

const Webauthn = z.object({
  id: z.string(),
  publicKey: z.string(),
  counter: z.number().int().nonnegative(),
  transports: z.array(z.string()).optional(),
});

/** Bytes of base64 or base64url text, whatever its padding. */
function fromBase64(text: string): Uint8Array {
  const plain = text.replaceAll("-", "+").replaceAll("_", "/").replace(/=+$/, "");
  const padded = plain + "=".repeat((4 - plain.length % 4) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

/** v4 `data.userPasskeys`. */
export const passkeysV4: V4Kind<PasskeyV4> = {
  key: "userPasskeys",
  counted: "passkeys",
  schema: PasskeyV4,
  async importRecord(ctx, p) {
    const userId = ctx.ids.users.get(p.userId);
    if (!userId) return ctx.report.skip("passkeys", p.id, "owner not imported");
    const reg = Webauthn.safeParse(p.reg.webauthn);
    let publicKey: Uint8Array | null = null;
    try {
      publicKey = reg.success ? fromBase64(reg.data.publicKey) : null;
    } catch {
      // not base64: treated as a legacy registration
    }
    if (!reg.success || !publicKey) {
      return ctx.report.skip("passkeys", p.id, "legacy registration (not webauthn)");
    }
    const existing = await ctx.store.mfa.listPasskeys(userId);
    if (existing.some((k) => k.name === p.name)) {
      return ctx.report.skip("passkeys", p.id, "the user has a passkey of that name");
    }
    if (await ctx.store.mfa.getPasskeyByCredential(reg.data.id)) {
      return ctx.report.skip("passkeys", p.id, "credential already registered");
    }
    await ctx.store.mfa.createPasskey({
      id: ctx.newId(),
      userId,
      name: p.name,
      credentialId: reg.data.id,
      publicKey,
      counter: reg.data.counter,
      transports: reg.data.transports ?? [],
      createdAt: new Date(p.createdAt),
      lastUsed: p.lastUsed === null ? null : new Date(p.lastUsed),
    });
    ctx.report.add("passkeys");
  },
  async *exportRecords(x) {
    for (const user of x.users) {
      for (const k of await x.s.store.mfa.listPasskeys(user.id)) {
        yield {
          id: k.id,
          createdAt: k.createdAt.toISOString(),
          lastUsed: k.lastUsed?.toISOString() ?? null,
          name: k.name,
          reg: {
            webauthn: {
              webAuthnUserID: base64url(new TextEncoder().encode(user.id)),
              id: k.credentialId,
              publicKey: btoa(String.fromCharCode(...k.publicKey)),
              counter: k.counter,
              transports: k.transports,
            },
          },
          userId: k.userId,
        };
      }
    }
  },
};
