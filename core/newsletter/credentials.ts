import { credentialHash, randomCredential } from "../credentials.ts"
import type { TenantScope } from "../TenantScope.ts"
import { decryptSecret, encryptSecret } from "../webhook/secrets.ts"

// The newsletter widget's publishable key and bot-check secret, without services. The publishable key is found by its
// SHA-256 like a website browser key; it is also kept encrypted so the set-up call can show it again (it sits in every
// page that embeds the widget, so showing it again reveals nothing). The Turnstile secret is encrypted and never shown.

export const PUBLISHABLE_PREFIX = "svc_pub_"

/** `svc_pub_` + 32 random bytes as base62 (about 190 bits). */
export const generatePublishableKey = (): string => randomCredential(PUBLISHABLE_PREFIX)

export const looksPublishable = (key: string): boolean => /^svc_pub_[0-9A-Za-z]{20,100}$/.test(key)

export const hashPublishableKey = credentialHash

// The associated data names tenant, mode and purpose: a ciphertext copied to another row or column fails to decrypt.
const aad = (scope: TenantScope, what: "publishable_key" | "bot_check_secret") => `newsletter:${scope.tenant_id}:${scope.sandbox}:${what}`

export const encryptNewsletterSecret = (key: Buffer, scope: TenantScope, what: "publishable_key" | "bot_check_secret", value: string): Buffer =>
  encryptSecret(key, value, aad(scope, what))

export const decryptNewsletterSecret = (key: Buffer, scope: TenantScope, what: "publishable_key" | "bot_check_secret", blob: Uint8Array): string =>
  decryptSecret(key, Buffer.from(blob), aad(scope, what))
