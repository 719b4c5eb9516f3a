import type { PrivacyKeyShape } from "../../core/privacy/PrivacyKey.ts"

// An export's download link: signed with the privacy key over the request id and the link's expiry, so the link is
// its own credential (it can be handed to the data subject, who holds no API key) and stops working on its own.

/** How long one link works; each read of the request hands out a fresh one while the document is kept. */
export const LINK_VALID_MS = 60 * 60 * 1000

const signed = (id: string, expires: string) => `privacy-export:${id.toLowerCase()}:${expires}`

export const downloadLink = (key: PrivacyKeyShape, baseUrl: string, id: string, now: number, documentExpiresAt: number) => {
  const expires = String(Math.floor(Math.min(now + LINK_VALID_MS, documentExpiresAt) / 1000))
  const signature = key.sign(signed(id, expires))
  return {
    url: `${baseUrl}/api/v1/privacy/exports/${id}?expires=${expires}&signature=${signature}`,
    expires_at: new Date(Number(expires) * 1000).toISOString()
  }
}

/** Why a link does not open the document (kept for tests; the route answers every reason with the same 404). */
export const linkProblem = (key: PrivacyKeyShape, id: string, expires: string, signature: string, now: number) => {
  if (!/^\d{1,12}$/.test(expires)) return "malformed"
  if (Number(expires) * 1000 <= now) return "expired"
  if (!key.verify(signed(id, expires), signature)) return "signature"
  return undefined
}
