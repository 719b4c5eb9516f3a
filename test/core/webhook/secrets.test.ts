import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { createHmac, randomBytes } from "node:crypto"
import { deliveryHeaders } from "../../../actors/webhook/attempt.ts"
import { reservedHeaderReason } from "../../../schemas/webhook.ts"
import { decryptSecret, encryptSecret, generateSigningSecret } from "../../../core/webhook/secrets.ts"
import { signatureHeader, signatureOf } from "../../../core/webhook/signature.ts"

const key = randomBytes(32)

describe("signing secrets at rest", () => {
  it("round-trips through AES-256-GCM, with a fresh IV each time and no plaintext in the ciphertext", () => {
    const secret = generateSigningSecret()
    const a = encryptSecret(key, secret, "sub-1")
    const b = encryptSecret(key, secret, "sub-1")
    expect(a.equals(b)).toBe(false)
    expect(a.includes(Buffer.from(secret))).toBe(false)
    expect(decryptSecret(key, a, "sub-1")).toBe(secret)
  })

  it("refuses another subscription's ciphertext, another key, and any tampered byte", () => {
    const blob = encryptSecret(key, generateSigningSecret(), "sub-1")
    expect(() => decryptSecret(key, blob, "sub-2")).toThrow()
    expect(() => decryptSecret(randomBytes(32), blob, "sub-1")).toThrow()
    fc.assert(fc.property(fc.integer({ min: 1, max: blob.length - 1 }), fc.integer({ min: 1, max: 255 }), (i, x) => {
      const bad = Buffer.from(blob)
      bad[i] = bad[i]! ^ x
      try {
        decryptSecret(key, bad, "sub-1")
        return false
      } catch {
        return true
      }
    }))
  })
})

describe("signatures", () => {
  it("sign timestamp + '.' + body with HMAC-SHA256, one sha256= value per secret, newest first", () => {
    const body = '{"event_type":"contact.created"}'
    const ts = "2026-11-22T10:00:00.000Z"
    const expected = createHmac("sha256", "whsec_a").update(`${ts}.${body}`).digest("hex")
    expect(signatureOf("whsec_a", ts, body)).toBe(`sha256=${expected}`)
    expect(signatureHeader(["whsec_a", "whsec_b"], ts, body)).toBe(`sha256=${expected} ${signatureOf("whsec_b", ts, body)}`)
  })
})

describe("custom headers", () => {
  it("refuses platform, transport and credential headers in any case", () => {
    for (const h of ["X-Webhook-Signature", "x-webhook-delivery", "X-WEBHOOK-Foo", "Webhook-Id", "Host", "content-length", "Content-Type",
      "Transfer-Encoding", "Authorization", "Cookie", "Proxy-Authorization", "X-Forwarded-For", "User-Agent", "bad name", "x:y"]) {
      expect(reservedHeaderReason(h), h).toBeDefined()
    }
    for (const h of ["X-Partner-Token", "X-Api-Key", "X-Request-Source"]) expect(reservedHeaderReason(h), h).toBeUndefined()
  })

  it("can never replace a platform header at delivery, whatever the stored set holds (property)", () => {
    const platform = { "content-type": "application/json", "x-webhook-signature": "sha256=real", "x-webhook-event": "contact.created" }
    const names = fc.constantFrom("X-Webhook-Signature", "x-webhook-signature", "X-WEBHOOK-EVENT", "Content-Type", "Host", "X-Custom")
    fc.assert(fc.property(fc.dictionary(names, fc.string()), (custom) => {
      const out = deliveryHeaders(custom, platform)
      const lower = Object.keys(out).map((k) => k.toLowerCase())
      return out["x-webhook-signature"] === "sha256=real" && out["content-type"] === "application/json" &&
        new Set(lower).size === lower.length && !lower.includes("host")
    }))
  })
})
