import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { cdp, unique } from "../cdp/support.ts"
import { phone } from "../support/fixtures.ts"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../support/httpsReceiver.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { createTenant, post, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { expectVerifies, subscribe } from "../support/webhook.ts"
import { createSource, serverPost, type Source } from "../website/support.ts"

// Contacts made by website events and by CDP identify announce themselves like every other path's (issue 24, B1):
// one `contact.created` per new contact, delivered to a real HTTPS receiver; a matched contact announces nothing.
process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
useEncryptionKey()

let platform: RunningPlatform
let receiver: Receiver
let tenant: TestTenant
let source: Source
let secret: string

beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  platform = await startPlatform("contactcreated")
  tenant = await createTenant("contactcreated")
  source = await createSource(platform.baseUrl, tenant.live_key)
  expect((await cdp(platform.baseUrl, tenant.live_key).settings({ visitor_tracking: true })).status).toBe(200)
  secret = (await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/contacts"), event_types: ["contact.created"] })).secret
})
afterAll(async () => {
  await platform?.stop()
  await receiver?.close()
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
})

let sentinels = Math.floor(Math.random() * 1_000_000)
const email = () => `${unique("guest")}@hotel-guests.net`
const deliveredFor = (address: string) =>
  receiver.on("/contacts").filter((r) => JSON.parse(r.raw.toString("utf8")).data.contact.email === address)

/**
 * Waits for one `contact.created` of `address`, then lets a contact created through the guests API arrive after the
 * repeat (the same worker's outbox, published later), so a stray second delivery would have had its time to land.
 */
const expectOnce = async (address: string, contactId: string | undefined, repeat: () => Promise<void>) => {
  const deadline = Date.now() + 15_000
  while (deliveredFor(address).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
  const [first] = deliveredFor(address)
  expect(first, `contact.created for ${address}`).toBeDefined()
  expectVerifies(first!, secret)
  expect(first!.headers["x-webhook-event"]).toBe("contact.created")
  expect(JSON.parse(first!.raw.toString("utf8")).data.contact).toMatchObject({ email: address, ...(contactId === undefined ? {} : { id: contactId }) })
  await repeat()
  const sentinel = email()
  const later = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: phone(60_000_000 + ++sentinels), email: sentinel, first_name: "Later", last_name: "Guest" })
  expect(later.status, JSON.stringify(later.body)).toBe(201)
  while (deliveredFor(sentinel).length === 0 && Date.now() < deadline + 15_000) await new Promise((r) => setTimeout(r, 25))
  await new Promise((r) => setTimeout(r, 500))
  expect(deliveredFor(address)).toHaveLength(1)
}

describe("contact.created from website events and CDP identify", () => {
  it("a website event's new contact is announced once; a later event of the same guest announces nothing", async () => {
    const who = email()
    const event = (name: string) => ({ event: name, contact: { email: who }, context: { hotel_code: tenant.hotel_code } })
    const res = await serverPost(platform.baseUrl, source.server_key, event("lead.captured"))
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body.results[0]).toMatchObject({ status: "accepted", contact: "created" })
    await expectOnce(who, undefined, async () => {
      const again = await serverPost(platform.baseUrl, source.server_key, event("search.performed"))
      expect(again.body.results[0]).toMatchObject({ status: "accepted", contact: "matched" })
    })
  })

  it("CDP identify's new contact is announced once; identifying the same person again announces nothing", async () => {
    const api = cdp(platform.baseUrl, tenant.live_key)
    const who = email()
    const res = await api.identify({ visitor_id: unique("v"), email: who, first_name: "Oriol" })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.is_new).toBe(true)
    await expectOnce(who, res.body.data.contact_id, async () => {
      const again = await api.identify({ visitor_id: unique("v"), email: who })
      expect(again.body.data).toMatchObject({ contact_id: res.body.data.contact_id, is_new: false })
    })
  })
})
