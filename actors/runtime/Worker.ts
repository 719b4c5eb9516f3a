import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../../src/config/AppConfig.ts"
import { Database } from "../../src/db/Database.ts"
import { log } from "../../src/observability/log.ts"
import { Nats } from "../../streams/Nats.ts"
import { CallActor } from "../call/handler.ts"
import { ContactActor } from "../contact/handler.ts"
import { EventActor } from "../event/handler.ts"
import { ReservationActor } from "../reservation/handler.ts"
import { OutboxRelay } from "./OutboxRelay.ts"
import { PartitionConsumer } from "./PartitionConsumer.ts"
import type { ActorHandler } from "./types.ts"

export const Actors: ReadonlyArray<ActorHandler> = [ReservationActor, ContactActor, EventActor, CallActor]

export interface WorkerShape {
  readonly partitions: ReadonlyArray<PartitionConsumer>
  readonly liveActors: () => number
}

/**
 * Runs every partition of every actor type in this process, plus the outbox relay. Scale-out ownership of
 * partitions across processes (leases with fencing) is not here yet: run one worker process per deployment.
 */
export class Worker extends Context.Service<Worker, WorkerShape>()("app/actors/Worker") {
  static readonly layer = Layer.effect(Worker, Effect.gen(function*() {
    const config = yield* AppConfig
    const { sql } = yield* Database
    const { nc, js } = yield* Nats
    const relay = new OutboxRelay(sql, js)
    const deps = { sql, nc, js, relay, namespace: config.namespace }
    const partitions = Actors.flatMap((actor) =>
      Array.from({ length: config.partitions }, (_, p) => new PartitionConsumer(deps, actor, p))
    )
    yield* Effect.acquireRelease(
      Effect.promise(async () => {
        await Promise.all(partitions.map((p) => p.start()))
        relay.start()
        log("info", "worker started", { partitions: partitions.length })
      }),
      () => Effect.promise(async () => {
        relay.stop()
        await Promise.all(partitions.map((p) => p.stop()))
        await relay.sweep(0)
        log("info", "worker stopped")
      })
    )
    return Worker.of({ partitions, liveActors: () => partitions.reduce((n, p) => n + p.liveActors, 0) })
  }))
}
