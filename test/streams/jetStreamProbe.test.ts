import { afterAll, beforeAll, describe, expect, inject, it } from "@effect/vitest"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { Effect, Fiber } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { keepOnJetStream } from "../../streams/jetStreamProbe.ts"
import { freePort } from "../support/platform.ts"

// A NATS server without JetStream stands for a node through which no stream can be reached (the cluster's node cut
// from its peers, test/chaos/natsPeers.chaos.ts, answers the same way: no JetStream answer to a stream request).
let plain: ChildProcess
let plainUrl: string
const opened: Array<NatsConnection> = []

beforeAll(async () => {
  const port = await freePort()
  plain = spawn(process.env.NATS_BIN ?? "nats-server", ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" })
  plainUrl = `nats://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    const up = await connect({ servers: plainUrl }).then((nc) => nc.close().then(() => true), () => false)
    if (up) break
    await new Promise((r) => setTimeout(r, 100))
  }
})
afterAll(async () => {
  await Promise.all(opened.map((nc) => nc.close()))
  plain?.kill()
})

const open = async (servers: Array<string>) => {
  const nc = await connect({ servers, noRandomize: true, reconnectTimeWait: 100 })
  opened.push(nc)
  return nc
}

describe("keepOnJetStream", () => {
  it("moves a connection off a server through which JetStream does not answer, to one of its pool where it does", async () => {
    const jetstream = inject("natsUrl").split(",")[0]!
    const nc = await open([plainUrl, jetstream])
    expect(nc.getServer()).toBe(plainUrl.slice("nats://".length))
    const probe = Effect.runFork(keepOnJetStream(nc, "no_such_stream"))
    for (let i = 0; i < 150 && nc.getServer() !== jetstream.slice("nats://".length); i++) await new Promise((r) => setTimeout(r, 100))
    await Effect.runPromise(Fiber.interrupt(probe))
    expect(nc.getServer()).toBe(jetstream.slice("nats://".length))
  }, 30_000)

  it("leaves it where it is when JetStream answers there, even though the stream does not exist", async () => {
    const jetstream = inject("natsUrl").split(",")[0]!
    const nc = await open([jetstream, plainUrl])
    let reconnects = 0
    void (async () => {
      for await (const s of nc.status()) if (s.type === "reconnect") reconnects++
    })()
    const probe = Effect.runFork(keepOnJetStream(nc, "no_such_stream"))
    await new Promise((r) => setTimeout(r, 7_000))
    await Effect.runPromise(Fiber.interrupt(probe))
    expect(reconnects).toBe(0)
    expect(nc.getServer()).toBe(jetstream.slice("nats://".length))
  }, 30_000)
})
