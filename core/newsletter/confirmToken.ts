import { createHmac, timingSafeEqual } from "node:crypto"
import { isUuid } from "../../schemas/common.ts"

// The signed confirmation link of a newsletter subscription: `v1.<payload>.<mac>`, both base64url. The payload names
// the tenant, mode, subscription and the nonce of the email it was sent in, and an expiry; the MAC (HMAC-SHA256 under
// a key derived from the platform's at-rest key) makes it unforgeable. Single use comes from the subscription row:
// only a pending row with the same nonce is confirmed, and a confirmed one answers the same success again.

export const CONFIRM_TTL_MS = 7 * 86_400_000

export interface ConfirmClaim {
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly subscription_id: string
  readonly nonce: string
  /** Expiry, milliseconds since the epoch. */
  readonly exp: number
}

const macKey = (key: Buffer) => createHmac("sha256", key).update("gep:newsletter-confirm").digest()
const mac = (key: Buffer, payload: string) => createHmac("sha256", macKey(key)).update(`v1.${payload}`).digest("base64url")

export const confirmToken = (key: Buffer, c: ConfirmClaim): string => {
  const payload = Buffer.from(JSON.stringify({ t: c.tenant_id, s: c.sandbox, i: c.subscription_id, n: c.nonce, e: c.exp })).toString("base64url")
  return `v1.${payload}.${mac(key, payload)}`
}

export type TokenVerdict = { readonly ok: true; readonly claim: ConfirmClaim } | { readonly ok: false; readonly reason: "invalid" | "expired" }

export const verifyConfirmToken = (key: Buffer, token: string, now: number): TokenVerdict => {
  const parts = token.split(".")
  if (parts.length !== 3 || parts[0] !== "v1" || token.length > 1_000) return { ok: false, reason: "invalid" }
  const given = Buffer.from(parts[2]!)
  const expected = Buffer.from(mac(key, parts[1]!))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "invalid" }
  let p: { t?: unknown; s?: unknown; i?: unknown; n?: unknown; e?: unknown }
  try {
    p = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"))
  } catch {
    return { ok: false, reason: "invalid" }
  }
  if (typeof p.t !== "string" || !isUuid(p.t) || typeof p.s !== "boolean" || typeof p.i !== "string" || !isUuid(p.i) ||
    typeof p.n !== "string" || typeof p.e !== "number") return { ok: false, reason: "invalid" }
  if (p.e < now) return { ok: false, reason: "expired" }
  return { ok: true, claim: { tenant_id: p.t, sandbox: p.s, subscription_id: p.i, nonce: p.n, exp: p.e } }
}
