import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postWebhook } from "../../../actors/webhook/send.ts"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../../support/httpsReceiver.ts"

let receiver: Receiver
beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
})
afterAll(() => receiver?.close())

const send = (url: string, allowLoopback: boolean, resolve?: (h: string) => Promise<Array<{ address: string; family: number }>>) =>
  postWebhook(new URL(url), { "content-type": "application/json" }, "{}", { timeoutMs: 3_000, allowLoopback, ...(resolve ? { resolve } : {}) })

describe("one webhook attempt on the wire", () => {
  it("refuses loopback at connect time when the switch is off, by name or literal, and sends nothing", async () => {
    for (const url of [receiver.url("/off"), `https://127.0.0.1:${receiver.port}/off`, `https://[::ffff:127.0.0.1]:${receiver.port}/off`]) {
      const r = await send(url, false)
      expect(r.kind, url).toBe("error")
      expect(r.kind === "error" && r.error).toContain("blocked destination")
    }
    expect(receiver.on("/off")).toHaveLength(0)
  })

  it("connects to the address it checked: a name rebound to a blocked address never gets a socket", async () => {
    let lookups = 0
    const rebinding = async (_host: string) => (lookups++ === 0 ? [{ address: "93.184.215.14", family: 4 }] : [{ address: "10.0.0.1", family: 4 }])
    // First resolution (e.g. at creation) said public; the attempt's own resolution says private: refused.
    await rebinding("partner.test")
    const r = await send(`https://partner.test:${receiver.port}/rebind`, false, rebinding)
    expect(r.kind === "error" && r.error).toContain("10.0.0.1")
  })

  it("keeps the host name for TLS: a name pointed at the receiver but absent from its certificate fails verification", async () => {
    const toLoopback = async () => [{ address: "127.0.0.1", family: 4 }]
    const wrongName = await send(`https://partner.test:${receiver.port}/sni`, true, toLoopback)
    expect(wrongName.kind === "error" && wrongName.error).toMatch(/altnames|certificate/i)
    const rightName = await send(`https://localhost:${receiver.port}/sni`, true, toLoopback)
    expect(rightName).toMatchObject({ kind: "response", status: 200 })
    expect(receiver.on("/sni").map((r) => r.headers.host)).toEqual([`localhost:${receiver.port}`])
  })

  it("does not follow redirects", async () => {
    receiver.respond("/moved", () => ({ status: 307, headers: { location: `https://localhost:${receiver.port}/target` } }))
    expect(await send(receiver.url("/moved"), true)).toMatchObject({ kind: "response", status: 307 })
    expect(receiver.on("/target")).toHaveLength(0)
  })
})
