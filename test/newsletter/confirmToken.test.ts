import { describe, expect, it } from "@effect/vitest"
import { randomBytes, randomUUID } from "node:crypto"
import { confirmToken, verifyConfirmToken } from "../../core/newsletter/confirmToken.ts"

const key = randomBytes(32)
const claim = { tenant_id: randomUUID(), sandbox: false, subscription_id: randomUUID(), nonce: "n0nce", exp: Date.now() + 60_000 }

describe("newsletter confirmation token", () => {
  it("round-trips what it names", () => {
    expect(verifyConfirmToken(key, confirmToken(key, claim), Date.now())).toEqual({ ok: true, claim })
  })

  it("refuses a changed payload, another key, a truncated MAC and garbage", () => {
    const token = confirmToken(key, claim)
    const [v, payload, mac] = token.split(".")
    const other = Buffer.from(JSON.stringify({ t: claim.tenant_id, s: true, i: claim.subscription_id, n: "n0nce", e: claim.exp })).toString("base64url")
    for (const bad of [`${v}.${other}.${mac}`, confirmToken(randomBytes(32), claim), `${v}.${payload}.${mac!.slice(1)}`, "v1..", "x", `v2.${payload}.${mac}`]) {
      expect(verifyConfirmToken(key, bad, Date.now()), bad).toEqual({ ok: false, reason: "invalid" })
    }
  })

  it("expires", () => {
    expect(verifyConfirmToken(key, confirmToken(key, claim), claim.exp + 1)).toEqual({ ok: false, reason: "expired" })
  })
})
