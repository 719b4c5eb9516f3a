import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstreamManager } from "@nats-io/jetstream"
import { connect, nanos } from "@nats-io/transport-node"
import { namespaceStreams, STREAM_MAX_AGE_MS } from "../../streams/retention.ts"
import { ingressStream, outboxStream } from "../../streams/subjects.ts"
import { webhookStream } from "../../streams/webhookTopology.ts"
import { startPlatform, type RunningPlatform } from "../support/platform.ts"

// Every stream carries guests' data (envelopes, events, webhook bodies), so every one of them has an age limit: the
// bound on personal data in JetStream the README states. Asked of the streams a whole platform creates, so a stream
// added anywhere without one fails here, by name.

let platform: RunningPlatform

beforeAll(async () => {
  platform = await startPlatform("retention")
})
afterAll(async () => {
  await platform?.stop()
})

describe("stream retention", () => {
  it("every stream of the deployment keeps messages at most the stated age", async () => {
    const nc = await connect({ servers: platform.config.natsUrl.split(",") })
    try {
      const ns = platform.config.namespace
      const streams = await namespaceStreams(await jetstreamManager(nc), ns)
      expect(streams.map((s) => s.config.name)).toEqual(expect.arrayContaining([ingressStream(ns), outboxStream(ns), webhookStream(ns)]))
      for (const { config } of streams) {
        expect(config.max_age, `stream ${config.name} has an age limit`).toBeGreaterThan(0)
        expect(config.max_age, `stream ${config.name} keeps messages at most ${STREAM_MAX_AGE_MS} ms`).toBeLessThanOrEqual(nanos(STREAM_MAX_AGE_MS))
      }
    } finally {
      await nc.close()
    }
  })
})
