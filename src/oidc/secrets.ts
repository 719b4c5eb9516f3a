import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto"
import { decryptSecret, encryptSecret } from "../../core/webhook/secrets.ts"

// The SSO's secrets at rest, under the platform's at-rest key (the one webhook and channel secrets use). The
// associated data names the row, so a ciphertext copied onto another row fails to decrypt.

export const encryptClientSecret = (key: Buffer, clientId: string, secret: string) => encryptSecret(key, secret, `oidc_client:${clientId}`)
export const decryptClientSecret = (key: Buffer, clientId: string, blob: Uint8Array) => decryptSecret(key, Buffer.from(blob), `oidc_client:${clientId}`)

export const encryptSigningKey = (key: Buffer, kid: string, jwk: object) => encryptSecret(key, JSON.stringify(jwk), `oidc_signing_key:${kid}`)
export const decryptSigningKey = (key: Buffer, kid: string, blob: Uint8Array) =>
  JSON.parse(decryptSecret(key, Buffer.from(blob), `oidc_signing_key:${kid}`)) as Record<string, unknown>

/** The provider's cookie keys: derived from the at-rest key, so every ingress signs and verifies alike without a new secret. */
export const cookieKeys = (key: Buffer) => [createHmac("sha256", key).update("oidc-cookies:v1").digest("base64url")]

export const newClientId = () => `gepc_${randomBytes(9).toString("base64url")}`
export const newClientSecret = () => `gepcs_${randomBytes(32).toString("base64url")}`

/** A 6-digit sign-in code, uniform over 000000-999999. */
export const newSignInCode = () => String(randomInt(0, 1_000_000)).padStart(6, "0")

/** Codes and tokens that are only compared: SHA-256 (a sign-in code is also salted with its interaction, so one hash says nothing about another). */
export const digest = (value: string, salt = "") => createHash("sha256").update(`${salt}:${value}`).digest()

export const sameDigest = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b)

export const newClubCode = () => `clubc_${randomBytes(32).toString("base64url")}`
export const newTransferToken = () => `clubt_${randomBytes(32).toString("base64url")}`
