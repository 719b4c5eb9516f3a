import { Clock, Context, Effect, Layer } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { connect, Database } from "../../core/db/Database.ts"
import { processId } from "../../core/processIdentity.ts"
import { Metrics, sample } from "../../core/observability/metrics.ts"
import { Nats } from "../../streams/Nats.ts"
import { consumerName, ingressStream } from "../../streams/subjects.ts"
import { Lane } from "./Lane.ts"
import { inboxRetention } from "./inboxRetention.ts"
import { OutboxRelay } from "./OutboxRelay.ts"
import { PartitionOwnership } from "./PartitionOwnership.ts"
import type { ActorServices, AnyActor } from "./Actor.ts"
import type { PartitionConsumer } from "./PartitionConsumer.ts"


/**
 * How long stopping waits for the owned partitions to drain: well inside the process's shutdown limit
 * (GEP_SHUTDOWN_TIMEOUT_MS, 25 s by default), so that a drain that cannot finish (a database not answering) leaves its
 * envelopes unacked for the next owner and the process still stops cleanly, exit 0.
 */
const DRAIN_LIMIT_MS = 10_000

export interface WorkerShape {
  readonly workerId: string
  readonly ownership: PartitionOwnership
}

/**
 * A worker process: the partitions it holds leases on (shared with every other worker of the namespace), the
 * outbox relay, and the metrics they expose. Any number of workers can run; they rebalance on their own.
 */
export class Worker extends Context.Service<Worker, WorkerShape>()("app/actors/Worker") {
  /** A worker running the given actor types (the registry, from the composition root). */
  static readonly layer = (actors: ReadonlyArray<AnyActor>) => Layer.effect(Worker, Effect.gen(function*() {
    const config = yield* AppConfig
    const { sql } = yield* Database
    const { nc, js, jsm } = yield* Nats
    const relay = yield* OutboxRelay
    const services = yield* Effect.context<ActorServices>()
    const workerId = processId
    // Heartbeats and leases on connections of their own (see PartitionOwnership).
    const leaseSql = connect(config.databaseUrl, 2)
    // A few lanes per actor type, each applying the envelopes of its share of the partitions in groups.
    const lanes = new Map(actors.map((a) => [
      a.protocol.name,
      Array.from({ length: Math.max(1, Math.min(Math.max(config.applyLanes, a.minLanes ?? 1), config.partitions)) }, () => new Lane({ sql, nc, relay, namespace: config.namespace, partitions: config.partitions, services }, a))
    ]))
    const laneFor = (actor: string, partition: number) => {
      const list = lanes.get(actor)!
      return list[partition % list.length]!
    }
    const deps = { sql, js, jsm, namespace: config.namespace, ackWaitMs: config.ackWaitMs, laneFor }
    // The connection's state as the client reports it: down from a disconnect (a stale connection included: no answer
    // to its pings, streams/Nats.ts) until it reconnects.
    let natsUp = true
    yield* Effect.forkScoped(Effect.promise(async () => {
      for await (const status of nc.status()) {
        if (status.type === "disconnect" || status.type === "staleConnection") natsUp = false
        else if (status.type === "reconnect") natsUp = true
      }
    }))
    const ownership = new PartitionOwnership(deps, actors, {
      workerId, partitions: config.partitions, leaseTtlMs: config.leaseTtlMs, tickMs: Math.max(200, Math.floor(config.leaseTtlMs / 5)),
      drainLimitMs: DRAIN_LIMIT_MS, natsReachable: () => natsUp && !nc.isClosed()
    }, leaseSql)
    const perActor = (read: (c: PartitionConsumer) => number) =>
      (set: (labels: Record<string, string>, value: number) => void) => {
        for (const a of actors) set({ actor: a.protocol.name }, [...ownership.owned.values()].filter((c) => c.fence.actor === a.protocol.name).reduce((n, c) => n + read(c), 0))
      }
    const unsample = [
      sample(Metrics.ownedPartitions, perActor(() => 1)),
      sample(Metrics.liveActors, perActor((c) => c.liveActors)),
      sample(Metrics.mailboxDepth, perActor((c) => c.depth)),
      sample(Metrics.consumerPending, async (set) => {
        await Promise.all([...ownership.owned.values()].map(async (c) => {
          const info = await jsm.consumers.info(ingressStream(config.namespace), consumerName(config.namespace, c.fence.actor, c.partition)).catch(() => undefined)
          if (info) set({ actor: c.fence.actor, partition: c.partition }, info.num_pending + info.num_ack_pending)
        }))
      }),
      sample(Metrics.outboxBacklog, async (set) => {
        // This deployment's backlog, as its relay sweeps it (batch rows from before they named one count for everyone).
        const [row] = await sql`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL
          AND (subject = '' OR left(subject, ${config.namespace.length + 1}) = ${`${config.namespace}.`})`
        set({}, row!.n as number)
      })
    ]
    yield* Effect.forkScoped(inboxRetention({ sql, jsm, namespace: config.namespace, retentionMs: config.inboxRetentionMs }))
    const ids = { worker_id: workerId }
    // The ownership loops are fibers of this layer's scope; the release below stops them before anything else.
    yield* ownership.start
    yield* Effect.acquireRelease(
      Effect.logInfo("worker started").pipe(Effect.annotateLogs(ids)),
      // Never fails: each step catches and logs its own failures (a lease not released expires by itself). What the
      // lanes wrote last is published by the relay, which closes after this layer.
      () => Effect.gen(function*() {
        const deadline = (yield* Clock.currentTimeMillis) + DRAIN_LIMIT_MS
        yield* ownership.stop(deadline)
        const lanesBy = Math.max(deadline, (yield* Clock.currentTimeMillis) + 1_000)
        yield* Effect.forEach([...lanes.values()].flat(), (l) => l.stop(lanesBy), { concurrency: "unbounded", discard: true })
        yield* Effect.promise(() => leaseSql.end({ timeout: 2 }))
        for (const u of unsample) u()
        yield* Effect.logInfo("worker stopped").pipe(Effect.annotateLogs(ids))
      })
    )
    return Worker.of({ workerId, ownership })
  }))
}
