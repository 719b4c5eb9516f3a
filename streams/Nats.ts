import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { Context, Effect, Layer, type Scope } from "effect"
import { AppConfig } from "../core/config/AppConfig.ts"
import { keepOnJetStream } from "./jetStreamProbe.ts"
import { natsFailure, type NatsFailure } from "./natsErrors.ts"
import { ingressStream } from "./subjects.ts"

const PING_INTERVAL_MS = 2_000

export interface NatsShape {
  readonly nc: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
}

export class Nats extends Context.Service<Nats, NatsShape>()("app/streams/Nats") {
  /** Connects (a refused or timed-out first connection fails with `NatsUnavailable`); drains on release. */
  static readonly make = (url: string, name: string): Effect.Effect<NatsShape, NatsFailure, Scope.Scope> =>
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const nc = await connect({
            servers: url.split(","),
            name,
            maxReconnectAttempts: -1,
            reconnectTimeWait: 500,
            // A connection whose server stops answering (a network partition: no reset, just silence) is declared
            // stale after two unanswered pings, 4-6 s, not the client's default 4 min: a worker then stops renewing its
            // leases (actors/runtime/PartitionOwnership.ts) and the others take its partitions.
            pingInterval: PING_INTERVAL_MS,
            maxPingOut: 2,
            // No stack captured for every request/publish "in case it fails": that was a measurable share of the
            // ingress's CPU. Failures still carry their codes; only the caller's stack is missing from them.
            noAsyncTraces: true
          })
          // JetStream not answering (yet): this connection is not kept open behind the failure.
          const jsm = await jetstreamManager(nc).catch(async (e) => {
            await nc.close()
            throw e
          })
          return { nc, js: jetstream(nc, { timeout: 5_000 }), jsm }
        },
        catch: natsFailure
      }),
      ({ nc }) => Effect.promise(() => nc.drain().catch(() => nc.close()))
    ).pipe(Effect.map((s) => Nats.of(s)))

  /** A long-lived process's connection, kept on a server through which JetStream answers (jetStreamProbe.ts). */
  static readonly layer = (name: string) =>
    Layer.effect(Nats, Effect.gen(function*() {
      const config = yield* AppConfig
      const nats = yield* Nats.make(config.natsUrl, name)
      yield* Effect.forkScoped(keepOnJetStream(nats.nc, ingressStream(config.namespace)))
      return nats
    }))
}
