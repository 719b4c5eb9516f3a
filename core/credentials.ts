import { createHash, randomBytes } from "node:crypto"

// Bearer credentials the platform issues (API keys, telephony tokens, website keys, the newsletter's publishable key):
// a prefix naming the kind, then a secret body; stored as the SHA-256 of the whole string and looked up by it.

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** `prefix` + 32 random bytes as base62 (about 190 bits): long enough that a fast hash is a safe way to store it. */
export const randomCredential = (prefix: string): string => {
  let body = ""
  for (const b of randomBytes(32)) body += BASE62[b % 62]
  return `${prefix}${body}`
}

/** What a credential is stored and found by. */
export const credentialHash = (credential: string): Buffer => createHash("sha256").update(credential, "utf8").digest()
