import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../support/httpsReceiver.ts"
import { createTenant, post, request, startPlatform, type RunningPlatform } from "../support/platform.ts"
import { matchingSignature, newGuestReservation } from "../support/webhook.ts"

// A partner moving from another provider keeps its verifier: the subscription signs with the secret it supplied.
process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"

let platform: RunningPlatform
let receiver: Receiver

beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  platform = await startPlatform("whsecret")
})
afterAll(async () => {
  await platform?.stop()
  await receiver?.close()
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
})

describe("a webhook subscription with the partner's own secret", () => {
  it("signs deliveries with that secret as sent; after rotate-secret, with the new one and, for 24 h, the partner's", async () => {
    const tenant = await createTenant("whsecret")
    const mine = `whsec_${randomBytes(32).toString("base64")}`
    const created = await post(platform.baseUrl, "/api/v1/webhooks", tenant.live_key, {
      url: receiver.url("/mine"), event_types: ["contact.created"], secret: mine
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.data.secret).toBeUndefined()

    await newGuestReservation(platform.baseUrl, tenant)
    const [first] = await receiver.waitFor("/mine", 1, 60_000)
    expect(matchingSignature(first!, mine)).toBe(0)
    expect(matchingSignature(first!, `whsec_${randomBytes(32).toString("base64")}`)).toBe(-1)

    const rotated = await request(platform.baseUrl, "POST", `/api/v1/webhooks/${created.body.data.id}/rotate-secret`, { key: tenant.live_key })
    expect(rotated.status).toBe(200)
    await newGuestReservation(platform.baseUrl, tenant)
    const [, second] = await receiver.waitFor("/mine", 2, 60_000)
    expect(matchingSignature(second!, rotated.body.data.secret)).toBe(0)
    expect(matchingSignature(second!, mine)).toBe(1)
  })
})
