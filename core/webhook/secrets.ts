import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

const VERSION = 1
const IV_BYTES = 12
const TAG_BYTES = 16

/** A signing secret: `whsec_` + 32 random bytes in base64url (256 bits). */
export const generateSigningSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`

/**
 * AES-256-GCM with a fresh 96-bit IV per encryption; the subscription id is the additional authenticated data, so a
 * ciphertext copied onto another subscription's row fails to decrypt. Layout: version(1) | iv(12) | tag(16) | data.
 */
export const encryptSecret = (key: Buffer, secret: string, subscriptionId: string): Buffer => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(subscriptionId, "utf8"))
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), data])
}

export const decryptSecret = (key: Buffer, blob: Buffer, subscriptionId: string): string => {
  if (blob[0] !== VERSION) throw new Error(`unknown secret encryption version ${blob[0]}`)
  const iv = blob.subarray(1, 1 + IV_BYTES)
  const tag = blob.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES)
  const decipher = createDecipheriv("aes-256-gcm", key, iv)
  decipher.setAAD(Buffer.from(subscriptionId, "utf8"))
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(blob.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8")
}
