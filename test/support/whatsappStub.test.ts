import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startWhatsAppStub, type WhatsAppStub } from "./whatsappStub.ts"

// Tests of the test tooling: the stub is called with fetch as the platform's WhatsApp transport will call it, and
// its webhooks land on a local receiver that verifies X-Hub-Signature-256 the way the platform must.

const PHONE_ID = "106540352242922"
const TOKEN = "EAAG-test-token"
const SECRET = "app-secret-1"
const OTHER_ID = "200000000000002"

interface Delivery {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly raw: string
  readonly signatureValid: boolean
  readonly json: any
}

/** What the platform's /api/webhooks/whatsapp does first: HMAC-SHA256 of the raw bytes, constant-time compare. */
const verify = (raw: Buffer, header: string | undefined) => {
  const expected = Buffer.from(`sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`)
  const given = Buffer.from(header ?? "")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const startReceiver = async () => {
  const deliveries: Array<Delivery> = []
  let respond: (d: Delivery, index: number) => { status: number; delayMs?: number } = (d) => ({ status: d.signatureValid ? 200 : 401 })
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const raw = Buffer.concat(chunks)
      const url = new URL(req.url ?? "/", "http://x")
      if (req.method === "GET") {
        const ok = url.searchParams.get("hub.mode") === "subscribe" && url.searchParams.get("hub.verify_token") === "verify-me"
        return void res.writeHead(ok ? 200 : 403).end(ok ? url.searchParams.get("hub.challenge") : "")
      }
      const signature = req.headers["x-hub-signature-256"]
      const delivery: Delivery = {
        method: req.method ?? "", url: req.url ?? "", headers: req.headers, raw: raw.toString("utf8"),
        signatureValid: verify(raw, typeof signature === "string" ? signature : undefined),
        json: (() => { try { return JSON.parse(raw.toString("utf8")) } catch { return undefined } })()
      }
      const { status, delayMs = 0 } = respond(delivery, deliveries.length)
      deliveries.push(delivery)
      setTimeout(() => res.writeHead(status).end(), delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/whatsapp`,
    deliveries,
    respondWith: (f: typeof respond) => { respond = f },
    reset: () => {
      deliveries.length = 0
      respond = (d) => ({ status: d.signatureValid ? 200 : 401 })
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

const statusesOf = (deliveries: ReadonlyArray<Delivery>) =>
  deliveries.flatMap((d) => d.json.entry[0].changes[0].value.statuses ?? [])

const template = (name: string, parameters: ReadonlyArray<string>, language = "es") => ({
  name, language: { code: language },
  components: [{ type: "body", parameters: parameters.map((text) => ({ type: "text", text })) }]
})

describe("whatsappStub", () => {
  let stub: WhatsAppStub
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  const send = async (body: Record<string, unknown>, options: { path?: string; token?: string; signal?: AbortSignal } = {}) => {
    const response = await fetch(`${stub.baseUrl}${options.path ?? `/${PHONE_ID}/messages`}`, {
      method: "POST",
      headers: { authorization: `Bearer ${options.token ?? TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      ...(options.signal === undefined ? {} : { signal: options.signal })
    })
    return { status: response.status, headers: response.headers, json: (await response.json()) as any }
  }
  const sendTemplate = (to: string, callbackData: string, parameters: ReadonlyArray<string> = ["Ana", "12 May"]) =>
    send({ messaging_product: "whatsapp", recipient_type: "individual", to, type: "template",
      template: template("stay_reminder", parameters), biz_opaque_callback_data: callbackData })

  beforeAll(async () => {
    receiver = await startReceiver()
    stub = await startWhatsAppStub({
      numbers: [
        { phoneNumberId: PHONE_ID, accessToken: TOKEN, appSecret: SECRET, wabaId: "102290129340398",
          templates: [{ name: "stay_reminder", language: "es", bodyParameters: 2, category: "utility" },
            { name: "spring_offer", language: "en_US", bodyParameters: 0, category: "marketing" }] },
        { phoneNumberId: OTHER_ID, accessToken: "other-token", appSecret: "other-secret", templates: [] }
      ],
      webhookUrl: receiver.url
    })
  })
  afterAll(async () => {
    await stub.close()
    await receiver.close()
  })
  beforeEach(async () => {
    await stub.settled()
    stub.clear()
    stub.setWebhookUrl(receiver.url)
    stub.setAutoStatuses([], "in_order")
    receiver.reset()
  })

  it("accepts a template send in the Cloud API answer shape and records the call", async () => {
    expect(stub.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v21\.0$/)
    const answer = await sendTemplate("+34 600 111 222", "msg-1")
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({
      messaging_product: "whatsapp",
      contacts: [{ input: "+34 600 111 222", wa_id: "34600111222" }],
      messages: [{ id: expect.stringMatching(/^wamid\./), message_status: "accepted" }]
    })
    expect(stub.calls).toHaveLength(1)
    expect(stub.calls[0]).toMatchObject({
      phoneNumberId: PHONE_ID, answeredStatus: 200, wamid: answer.json.messages[0].id,
      body: { to: "+34 600 111 222", biz_opaque_callback_data: "msg-1" },
      headers: { authorization: `Bearer ${TOKEN}` }
    })
    expect(stub.countByCallbackData()).toEqual(new Map([["msg-1", 1]]))
  })

  it("takes the path with or without the API version; a text reply has no message_status", async () => {
    const answer = await send({ messaging_product: "whatsapp", to: "34600111222", type: "text", text: { body: "Hola" } })
    expect(answer.status).toBe(200)
    expect(answer.json.messages).toEqual([{ id: expect.stringMatching(/^wamid\./) }])
    const unversioned = await fetch(`http://127.0.0.1:${stub.port}/${PHONE_ID}/messages`, {
      method: "POST", headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ messaging_product: "whatsapp", to: "34600111222", type: "text", text: { body: "Hola" } })
    })
    expect(unversioned.status).toBe(200)
    expect(stub.calls.map((c) => c.phoneNumberId)).toEqual([PHONE_ID, PHONE_ID])
  })

  it("refuses a missing or foreign token with Meta's OAuthException 190, an unknown phone number id with 100", async () => {
    const body = { messaging_product: "whatsapp", to: "34600111222", type: "text", text: { body: "x" } }
    for (const token of ["wrong", "other-token"]) {
      const answer = await send(body, { token })
      expect(answer.status).toBe(401)
      expect(answer.json.error).toMatchObject({ type: "OAuthException", code: 190, fbtrace_id: expect.any(String) })
    }
    const unknown = await send(body, { path: "/999/messages" })
    expect(unknown.status).toBe(400)
    expect(unknown.json.error).toMatchObject({ code: 100, error_subcode: 33, type: "GraphMethodException" })
    expect(stub.calls.map((c) => c.answeredStatus)).toEqual([401, 401, 400])
    expect(stub.countByCallbackData().size).toBe(0)
  })

  it("checks templates against the registry: name and language, parameter count, empty and multi-line text", async () => {
    const base = { messaging_product: "whatsapp", to: "34600111222", type: "template", biz_opaque_callback_data: "m" }
    const cases: Array<[unknown, number, number]> = [
      [template("no_such", ["a", "b"]), 404, 132001],
      [template("stay_reminder", ["a", "b"], "en_US"), 404, 132001],
      [template("stay_reminder", ["a"]), 400, 132000],
      [template("stay_reminder", ["a", "b", "c"]), 400, 132000],
      [template("stay_reminder", ["a", " "]), 400, 131008],
      [template("stay_reminder", ["a", "line\nbreak"]), 400, 132018],
      [{ name: "stay_reminder" }, 400, 100]
    ]
    for (const [t, status, code] of cases) {
      const answer = await send({ ...base, template: t })
      expect([answer.status, answer.json.error.code]).toEqual([status, code])
      expect(answer.json.error.message).toMatch(new RegExp(`^\\(#${code}\\) `))
    }
    expect((await send({ ...base, template: { name: "spring_offer", language: { code: "en_US" } } })).status).toBe(200)
    expect((await send({ ...base, messaging_product: undefined, template: template("stay_reminder", ["a", "b"]) })).json.error.code).toBe(100)
    expect((await send({ ...base, type: "text", text: { body: "" } })).json.error.code).toBe(100)
    expect(stub.countByCallbackData()).toEqual(new Map([["m", 1]]))
  })

  it("failNext answers 429 (code 130429, Retry-After) or 5xx to the next sends, then accepts", async () => {
    stub.failNext(2, 429)
    stub.failNext(1, 503)
    const answers = [await sendTemplate("34600111222", "r"), await sendTemplate("34600111222", "r"),
      await sendTemplate("34600111222", "r"), await sendTemplate("34600111222", "r")]
    expect(answers.map((a) => a.status)).toEqual([429, 429, 503, 200])
    expect(answers[0]!.json.error).toMatchObject({ code: 130429, message: "(#130429) Rate limit hit" })
    expect(answers[0]!.headers.get("retry-after")).toBe("1")
    expect(answers[2]!.json.error.code).toBe(2)
    stub.failNext(1, 500, { error: { code: 131000, message: "custom" } }, { "x-custom": "yes" })
    const custom = await sendTemplate("34600111222", "r")
    expect([custom.status, custom.json, custom.headers.get("x-custom")]).toEqual([500, { error: { code: 131000, message: "custom" } }, "yes"])
    expect(stub.countByCallbackData()).toEqual(new Map([["r", 1]]))
  })

  it("failRecipient: 131030 refused at once (sync), 131026 accepted then a signed failed status (async)", async () => {
    stub.failRecipient("+34 600 000 030", 131030, "Recipient phone number not in allowed list")
    stub.failRecipient("34600000026", 131026, "Message undeliverable", { details: "Unable to deliver the message." })
    const sync = await sendTemplate("34600000030", "s")
    expect(sync.status).toBe(400)
    expect(sync.json.error).toMatchObject({ code: 131030, message: "(#131030) Recipient phone number not in allowed list" })
    const async = await sendTemplate("34600000026", "a")
    expect(async.status).toBe(200)
    await stub.settled()
    expect(receiver.deliveries).toHaveLength(1)
    expect(receiver.deliveries[0]!.signatureValid).toBe(true)
    expect(statusesOf(receiver.deliveries)).toEqual([{
      id: async.json.messages[0].id, status: "failed", timestamp: expect.stringMatching(/^\d+$/), recipient_id: "34600000026",
      biz_opaque_callback_data: "a",
      errors: [{ code: 131026, title: "Message undeliverable", message: "Message undeliverable", error_data: { details: "Unable to deliver the message." } }]
    }])
  })

  it("posts auto statuses in Meta's envelope, signed, in order; reversed and shuffled keep event timestamps", async () => {
    stub.setAutoStatuses(["sent", "delivered", "read"])
    const answer = await sendTemplate("34600111222", "msg-auto")
    await stub.settled()
    expect(receiver.deliveries.every((d) => d.signatureValid && d.method === "POST")).toBe(true)
    expect(receiver.deliveries[0]!.headers["content-type"]).toBe("application/json")
    const envelope = receiver.deliveries[0]!.json
    expect(envelope).toMatchObject({
      object: "whatsapp_business_account",
      entry: [{ id: "102290129340398", changes: [{ field: "messages", value: {
        messaging_product: "whatsapp", metadata: { display_phone_number: "15550001111", phone_number_id: PHONE_ID } } }] }]
    })
    const statuses = statusesOf(receiver.deliveries)
    expect(statuses.map((s: any) => s.status)).toEqual(["sent", "delivered", "read"])
    expect(new Set(statuses.map((s: any) => s.id))).toEqual(new Set([answer.json.messages[0].id]))
    expect(statuses.every((s: any) => s.recipient_id === "34600111222" && s.biz_opaque_callback_data === "msg-auto")).toBe(true)
    expect(statuses[0]).toMatchObject({ conversation: { expiration_timestamp: expect.any(String), origin: { type: "utility" } },
      pricing: { billable: true, category: "utility" } })
    expect(statuses[2].pricing).toBeUndefined()
    const times = statuses.map((s: any) => Number(s.timestamp))
    expect(times).toEqual([...times].sort())

    receiver.reset()
    stub.setAutoStatuses(["sent", "delivered", "read"], "reversed")
    await sendTemplate("34600111222", "msg-rev")
    await stub.settled()
    const reversed = statusesOf(receiver.deliveries)
    expect(reversed.map((s: any) => s.status)).toEqual(["read", "delivered", "sent"])
    expect(Number(reversed[0].timestamp)).toBeGreaterThan(Number(reversed[2].timestamp))

    receiver.reset()
    stub.setAutoStatuses(["sent", "delivered", "read"], "shuffled")
    for (let i = 0; i < 5; i++) await sendTemplate("34600111222", `msg-shuf-${i}`)
    await stub.settled()
    const shuffled = statusesOf(receiver.deliveries)
    expect(shuffled).toHaveLength(15)
    for (let i = 0; i < 5; i++) {
      const mine = shuffled.filter((s: any) => s.biz_opaque_callback_data === `msg-shuf-${i}`)
      expect(mine.map((s: any) => s.status).sort()).toEqual(["delivered", "read", "sent"])
    }
  })

  it("postInbound, postStatus and postRaw return the platform's status; a bad signature is the receiver's 401", async () => {
    expect(await stub.postInbound({ phoneNumberId: PHONE_ID, from: "+34 600 111 222", text: "STOP", name: "Ana", id: "wamid.in-1" })).toBe(200)
    expect(receiver.deliveries[0]!.signatureValid).toBe(true)
    expect(receiver.deliveries[0]!.json.entry[0].changes[0].value).toMatchObject({
      contacts: [{ profile: { name: "Ana" }, wa_id: "34600111222" }],
      messages: [{ from: "34600111222", id: "wamid.in-1", timestamp: expect.stringMatching(/^\d+$/), type: "text", text: { body: "STOP" } }]
    })
    expect(await stub.postStatus({ phoneNumberId: PHONE_ID, wamid: "wamid.x", status: "delivered", recipientId: "34600111222",
      bizOpaqueCallbackData: "hand-made", timestamp: "1700000000" })).toBe(200)
    expect(statusesOf(receiver.deliveries)[0]).toMatchObject({ id: "wamid.x", status: "delivered", timestamp: "1700000000", biz_opaque_callback_data: "hand-made" })
    expect(await stub.postStatuses(PHONE_ID, [
      { wamid: "wamid.y", status: "read", recipientId: "1" }, { wamid: "wamid.y", status: "delivered", recipientId: "1" }
    ])).toBe(200)
    expect(statusesOf(receiver.deliveries.slice(2)).map((s: any) => s.status)).toEqual(["read", "delivered"])
    const raw = receiver.deliveries[0]!.raw
    expect(await stub.postRaw(raw, "sha256=00")).toBe(401)
    expect(await stub.postRaw(raw)).toBe(401)
    expect(await stub.postRaw(raw, `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`)).toBe(200)
    expect(stub.posts.map((p) => [p.kind, p.status])).toEqual([
      ["inbound", 200], ["status", 200], ["status", 200], ["raw", 401], ["raw", 401], ["raw", 200]
    ])
  })

  it("delayMs: the client times out but the send was accepted and its statuses still arrive", async () => {
    stub.setAutoStatuses(["sent"])
    stub.delayMs(600)
    const aborted = await send({ messaging_product: "whatsapp", to: "34600111222", type: "template",
      template: template("stay_reminder", ["a", "b"]), biz_opaque_callback_data: "msg-aborted" },
      { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e)
    expect(aborted).toBeInstanceOf(Error)
    expect(stub.countByCallbackData().get("msg-aborted")).toBe(1)
    expect(stub.pendingPosts()).toBeGreaterThan(0)
    await stub.settled()
    expect(statusesOf(receiver.deliveries).map((s: any) => s.biz_opaque_callback_data)).toEqual(["msg-aborted"])
  })

  it("settled waits for slow webhook receivers; webhookRetries re-posts what was not answered 2xx", async () => {
    receiver.respondWith(() => ({ status: 200, delayMs: 300 }))
    stub.setAutoStatuses(["sent", "delivered"])
    await sendTemplate("34600111222", "msg-wait")
    expect(stub.pendingPosts()).toBeGreaterThan(0)
    await stub.settled()
    expect(stub.pendingPosts()).toBe(0)
    expect(stub.posts).toHaveLength(2)

    const retrying = await startWhatsAppStub({
      numbers: [{ phoneNumberId: PHONE_ID, accessToken: TOKEN, appSecret: SECRET, templates: [] }],
      webhookUrl: receiver.url, webhookRetries: 2
    })
    receiver.reset()
    receiver.respondWith((_d, index) => ({ status: index === 0 ? 503 : 200 }))
    expect(await retrying.postInbound({ phoneNumberId: PHONE_ID, from: "34600111222", text: "hi" })).toBe(200)
    expect(retrying.posts[0]).toMatchObject({ status: 200, attempts: 2 })
    expect(receiver.deliveries[0]!.raw).toBe(receiver.deliveries[1]!.raw)
    await retrying.close()
  })

  it("a webhook the platform cannot be reached for is recorded with status 0, never thrown into the test", async () => {
    stub.setWebhookUrl("http://127.0.0.1:1/api/webhooks/whatsapp")
    expect(await stub.postInbound({ phoneNumberId: PHONE_ID, from: "1", text: "x" })).toBe(0)
    stub.setWebhookUrl(undefined)
    await expect(stub.postInbound({ phoneNumberId: PHONE_ID, from: "1", text: "x" })).rejects.toThrow("no webhook URL")
  })

  it("runs the GET verification handshake against the webhook URL", async () => {
    expect(await stub.handshake("verify-me", "12345")).toEqual({ status: 200, body: "12345" })
    expect((await stub.handshake("wrong")).status).toBe(403)
  })

  it("waitForCalls resolves at n calls and rejects with a count after its timeout", async () => {
    const waiting = stub.waitForCalls(2, 5_000)
    await sendTemplate("34600111222", "w1")
    await sendTemplate("34600111222", "w2")
    expect(await waiting).toHaveLength(2)
    await expect(stub.waitForCalls(3, 100)).rejects.toThrow("2 of 3 calls after 100 ms")
  })

  it("close cuts answers held by delayMs and returns promptly", async () => {
    const own = await startWhatsAppStub({ numbers: [{ phoneNumberId: PHONE_ID, accessToken: TOKEN, appSecret: SECRET, templates: [] }] })
    own.delayMs(30_000)
    const held = fetch(`${own.baseUrl}/${PHONE_ID}/messages`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ messaging_product: "whatsapp", to: "1", type: "text", text: { body: "x" } }) }).catch((e: unknown) => e)
    await own.waitForCalls(1)
    const started = Date.now()
    await own.close()
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(await held).toBeInstanceOf(Error)
  })
})
