import { createHmac, timingSafeEqual } from "node:crypto"
import { isUuid } from "../../schemas/common.ts"

// One-click unsubscribe links (RFC 8058) in marketing email: the token names the message (which names tenant,
// contact and channel) and carries a MAC under a key derived from the platform's at-rest key, so it cannot be forged
// or pointed at another contact, and nothing about the guest is readable in it.

const mac = (key: Buffer, messageId: string) =>
  createHmac("sha256", createHmac("sha256", key).update("gep:list-unsubscribe").digest()).update(messageId).digest("base64url").slice(0, 32)

export const unsubscribeToken = (key: Buffer, messageId: string): string => `${messageId}.${mac(key, messageId)}`

/** The message id a token was made for, or undefined when the token is not one of ours. */
export const verifyUnsubscribeToken = (key: Buffer, token: string): string | undefined => {
  const dot = token.lastIndexOf(".")
  if (dot <= 0) return undefined
  const messageId = token.slice(0, dot)
  if (!isUuid(messageId)) return undefined
  const given = Buffer.from(token.slice(dot + 1))
  const expected = Buffer.from(mac(key, messageId))
  return given.length === expected.length && timingSafeEqual(given, expected) ? messageId : undefined
}

/** The headers a marketing email carries: a one-click POST link (and the same link for clients that only GET). */
export const listUnsubscribeHeaders = (publicBaseUrl: string, key: Buffer, messageId: string): Record<string, string> => ({
  "List-Unsubscribe": `<${publicBaseUrl}/api/v1/unsubscribe/${unsubscribeToken(key, messageId)}>`,
  "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
})
