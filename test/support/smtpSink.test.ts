import nodemailer from "nodemailer"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { startSmtpSink, type SmtpSink } from "./smtpSink.ts"

// Tests of the test tooling: a real nodemailer client against the sink, as the platform's email transport will be.
describe("smtpSink", () => {
  let sink: SmtpSink
  const transport = (extra: Record<string, unknown> = {}) =>
    nodemailer.createTransport({ host: "127.0.0.1", port: sink.port, secure: false, ...extra })
  const send = (overrides: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    transport(extra).sendMail({
      from: { name: "Hotel Sol", address: "stay@hotelsol.example" },
      to: "Ana García <ana@guest.example>",
      subject: "Your stay in Sevilla ☀",
      text: "Hola Ana",
      html: "<p>Hola <b>Ana</b></p>",
      ...overrides
    })

  beforeAll(async () => {
    sink = await startSmtpSink()
  })
  afterAll(async () => {
    await sink.close()
  })
  beforeEach(() => sink.clear())

  it("listens on 127.0.0.1 and hands out an smtp:// URL nodemailer accepts", async () => {
    expect(sink.url).toBe(`smtp://127.0.0.1:${sink.port}`)
    await nodemailer.createTransport(sink.url).sendMail({ from: "a@hotel.example", to: "b@guest.example", text: "x" })
    expect(sink.mails).toHaveLength(1)
  })

  it("keeps the parsed message: ids, addresses, subject, bodies, headers, raw text and envelope", async () => {
    const info = await send({
      messageId: "<msg-0001@gep.example>",
      headers: {
        "List-Unsubscribe": "<https://gep.example/u/abc>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
      },
      envelope: { from: "bounces@gep.example", to: ["ana@guest.example"] }
    })
    expect(info.accepted).toEqual(["ana@guest.example"])
    const [mail] = await sink.waitFor(1)
    expect(mail).toMatchObject({
      messageId: "<msg-0001@gep.example>",
      from: '"Hotel Sol" <stay@hotelsol.example>',
      fromAddress: "stay@hotelsol.example",
      to: ["ana@guest.example"],
      subject: "Your stay in Sevilla ☀",
      text: "Hola Ana",
      html: "<p>Hola <b>Ana</b></p>",
      envelope: { from: "bounces@gep.example", to: ["ana@guest.example"] }
    })
    expect(mail!.headers.get("list")).toMatchObject({ unsubscribe: { url: "https://gep.example/u/abc" } })
    expect(mail!.header("List-Unsubscribe")).toBe("<https://gep.example/u/abc>")
    expect(mail!.header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click")
    expect(mail!.header("x-absent")).toBeUndefined()
    expect(mail!.headers.get("message-id")).toBe("<msg-0001@gep.example>")
    expect(mail!.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m)
    expect(mail!.raw).toMatch(/^Message-ID: <msg-0001@gep\.example>\r$/m)
  })

  it("counts duplicates by Message-ID, in arrival order", async () => {
    await send({ messageId: "<a@gep.example>" })
    await send({ messageId: "<b@gep.example>" })
    await send({ messageId: "<a@gep.example>" })
    expect(sink.mails.map((m) => m.messageId)).toEqual(["<a@gep.example>", "<b@gep.example>", "<a@gep.example>"])
    expect(sink.countByMessageId()).toEqual(new Map([["<a@gep.example>", 2], ["<b@gep.example>", 1]]))
  })

  it("waitFor resolves when enough mails arrived and rejects with a count after its timeout", async () => {
    const waiting = sink.waitFor(2, 5_000)
    await send()
    await send()
    expect(await waiting).toHaveLength(2)
    await expect(sink.waitFor(3, 100)).rejects.toThrow("2 of 3 mails after 100 ms")
  })

  it("failRecipient answers a permanent 550 at RCPT TO: nothing is caught", async () => {
    sink.failRecipient("ANA@guest.example", 550, "No such user here")
    const error = await send().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: "EENVELOPE", responseCode: 550 })
    expect(String((error as Error).message)).toContain("No such user here")
    expect(sink.mails).toHaveLength(0)
  })

  it("failRecipient answers a temporary 451; other recipients of the same message still get it", async () => {
    sink.failRecipient("ana@guest.example", 451)
    const alone = await send().catch((e: unknown) => e)
    expect(alone).toMatchObject({ responseCode: 451 })
    const info = await send({ to: ["ana@guest.example", "luis@guest.example"] })
    expect(info.rejected).toEqual(["ana@guest.example"])
    expect(info.accepted).toEqual(["luis@guest.example"])
    expect(sink.mails).toHaveLength(1)
    expect(sink.mails[0]!.envelope.to).toEqual(["luis@guest.example"])
    expect(sink.mails[0]!.to).toEqual(["ana@guest.example", "luis@guest.example"])
  })

  it("failNext refuses the next n messages at DATA, then accepts", async () => {
    sink.failNext(2)
    const first = await send({ messageId: "<retry@gep.example>" }).catch((e: unknown) => e)
    const second = await send({ messageId: "<retry@gep.example>" }).catch((e: unknown) => e)
    expect(first).toMatchObject({ code: "EMESSAGE", responseCode: 451 })
    expect(second).toMatchObject({ code: "EMESSAGE", responseCode: 451 })
    await send({ messageId: "<retry@gep.example>" })
    expect(sink.countByMessageId()).toEqual(new Map([["<retry@gep.example>", 1]]))
    sink.failNext(1, 421)
    expect(await send().catch((e: unknown) => e)).toMatchObject({ responseCode: 421 })
    expect(sink.mails).toHaveLength(1)
  })

  it("delayMs holds the DATA answer: a client timeout fails the send although the sink kept the mail", async () => {
    sink.delayMs(1_000)
    const started = Date.now()
    const error = await send({ messageId: "<slow@gep.example>" }, { socketTimeout: 200 }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: "ETIMEDOUT" })
    expect(Date.now() - started).toBeLessThan(900)
    // The ambiguous case the platform must survive: the client saw a failure, the server has the message.
    expect(sink.countByMessageId().get("<slow@gep.example>")).toBe(1)
    sink.delayMs(0)
    await send()
    expect(sink.mails).toHaveLength(2)
  })

  it("clear forgets mails and every fault setting", async () => {
    await send()
    sink.failRecipient("ana@guest.example", 550)
    sink.failNext(3)
    sink.delayMs(5_000)
    sink.clear()
    expect(sink.mails).toHaveLength(0)
    await send()
    expect(sink.mails).toHaveLength(1)
  })

  it("close ends pooled client connections promptly", async () => {
    const own = await startSmtpSink()
    const pooled = nodemailer.createTransport(`${own.url}?pool=true`)
    await pooled.sendMail({ from: "a@hotel.example", to: "b@guest.example", text: "x" })
    const started = Date.now()
    await own.close()
    expect(Date.now() - started).toBeLessThan(1_000)
    pooled.close()
  })
})
