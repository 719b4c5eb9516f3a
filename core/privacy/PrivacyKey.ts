import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { createHash, createHmac, createSecretKey, hkdfSync, timingSafeEqual } from "node:crypto"
import { decodeKey, developmentKey } from "../config/developmentKey.ts"
import { decryptSecret, encryptSecret } from "../webhook/secrets.ts"
import type { Identifier } from "./identifier.ts"

/**
 * The privacy key: one secret (GEP_PRIVACY_KEY, 32 bytes in base64) from which three keys are derived (HKDF), so no
 * use of it can be turned into another: the keyed hashes suppressions are stored and found by, the seal on a request's
 * subject while the request runs, and the signature of an export's download link. Every process of a deployment
 * (ingress, workers, CLI) must hold the same key; `key_id` names it in the audit rows, so a rotation can tell which
 * hashes were made with which key.
 */
export interface PrivacyKeyShape {
  readonly keyId: string
  /** The keyed hash of a normalised identifier, per tenant: the same person has unrelated hashes in two accounts. */
  readonly hash: (tenantId: string, identifier: Identifier) => Buffer
  /** A request's subject, sealed to that request (a blob copied onto another row does not open). */
  readonly seal: (requestId: string, value: string) => Buffer
  readonly open: (requestId: string, sealed: Buffer) => string
  /** A signature over `text` (base64url), and its check in constant time. */
  readonly sign: (text: string) => string
  readonly verify: (text: string, signature: string) => boolean
}

const derive = (root: Buffer, purpose: string): Buffer => Buffer.from(hkdfSync("sha256", root, Buffer.alloc(0), `gep-privacy:${purpose}`, 32))

export const makePrivacyKey = (root: Buffer): PrivacyKeyShape => {
  // A KeyObject made once: given the bytes, every HMAC would make one of its own (5 % of a worker sending a broadcast).
  const hashKey = createSecretKey(derive(root, "identifier-hash"))
  const sealKey = derive(root, "subject-seal")
  const signKey = derive(root, "download-signature")
  const sign = (text: string) => createHmac("sha256", signKey).update(text, "utf8").digest("base64url")
  return {
    keyId: createHash("sha256").update(derive(root, "key-id")).digest("hex").slice(0, 16),
    hash: (tenantId, identifier) =>
      createHmac("sha256", hashKey).update(`${tenantId}\u0000${identifier.kind}\u0000${identifier.value}`, "utf8").digest(),
    seal: (requestId, value) => encryptSecret(sealKey, value, requestId),
    open: (requestId, sealed) => decryptSecret(sealKey, sealed, requestId),
    sign,
    verify: (text, signature) => {
      const expected = Buffer.from(sign(text), "utf8")
      const given = Buffer.from(signature, "utf8")
      return expected.length === given.length && timingSafeEqual(expected, given)
    }
  }
}

export class PrivacyKey extends Context.Service<PrivacyKey, PrivacyKeyShape>()("app/privacy/PrivacyKey") {
  static readonly layer = Layer.effect(PrivacyKey, Effect.gen(function*() {
    const configured = yield* Config.option(Config.Redacted("GEP_PRIVACY_KEY"))
    const root = Option.isSome(configured)
      ? decodeKey(Redacted.value(configured.value), "GEP_PRIVACY_KEY")
      : yield* Effect.promise(() => developmentKey("privacy.key")).pipe(Effect.tap(() =>
        Effect.logWarning("GEP_PRIVACY_KEY is not set: using the development key in .data/privacy.key; production must set it")))
    return PrivacyKey.of(makePrivacyKey(root))
  }).pipe(Effect.orDie))
}
