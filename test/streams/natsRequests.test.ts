import { describe, expect, it } from "@effect/vitest"
import { RequestError } from "@nats-io/nats-core"
import { connect } from "@nats-io/transport-node"
import { inject } from "vitest"

/**
 * patches/@nats-io+nats-core+3.4.0.patch (ADR 0036): an answered request builds no Error. Unpatched, RequestOne's
 * resolver called cancel(), which built RequestError("cancelled") (and its stack trace) for every answered request,
 * JetStream publishes included, to reject a promise already settled: 2 % of the worker's busy time in a profile.
 */
describe("NATS requests", () => {
  it("build no error when answered, and still fail when not", async () => {
    const nc = await connect({ servers: inject("natsUrl").split(","), noAsyncTraces: true })
    const subject = `${inject("namespace")}.natsrequests.${Date.now()}`
    nc.subscribe(subject, { callback: (_, m) => void m.respond(m.data) })
    // Every RequestError sets its name in its constructor: a setter on the prototype counts them.
    let built = 0
    Object.defineProperty(RequestError.prototype, "name", {
      configurable: true,
      get: () => "RequestError",
      set(this: object, v: string) {
        built++
        Object.defineProperty(this, "name", { value: v, writable: true, configurable: true })
      }
    })
    try {
      for (let i = 0; i < 20; i++) expect(new TextDecoder().decode((await nc.request(subject, `m${i}`, { timeout: 2_000 })).data)).toBe(`m${i}`)
      expect(built).toBe(0)
      const unanswered = await nc.request(`${subject}.nobody`, "x", { timeout: 500 }).then(() => undefined, (e: unknown) => e)
      expect(unanswered).toBeInstanceOf(Error)
    } finally {
      delete (RequestError.prototype as { name?: string }).name
      await nc.close()
    }
  })
})
