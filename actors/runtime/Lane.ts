import type { NatsConnection } from "@nats-io/transport-node"
import { Cause, Clock, type Context, Effect, Exit, Fiber, Queue } from "effect"
import { DatabaseError, DatabaseUnavailable } from "../../core/db/DatabaseFailure.ts"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { Metrics } from "../../core/observability/metrics.ts"
import type { ActorServices, AnyActor } from "./Actor.ts"
import { applyGroup, type GroupApplied } from "./applyGroup.ts"
import { dataFault } from "./dataFault.ts"
import { crashAfterCommit } from "./faults.ts"
import { LeaseLost } from "./leases.ts"
import type { OutboxRelayShape } from "./OutboxRelay.ts"
import { ack, giveUp, type Item, reply } from "./settle.ts"
import { untilDeadline } from "./untilDeadline.ts"

/** Attempts on an envelope that fails for a reason other than unavailable infrastructure before it is dead-lettered. */
const MAX_LOGIC_ATTEMPTS = 5
/** Re-runs of a whole group after a deadlock or serialization failure before its envelopes are applied one by one. */
const GROUP_CONFLICT_RETRIES = 3
/** Envelopes applied in one transaction at most. */
const GROUP_MAX = 256
/** Envelopes queued for a lane (fetched, not yet applied): bounds memory; a full lane stops its partitions' intake. */
const QUEUE_MAX = 2_048

const backoff = (attempt: number) => Math.min(5_000, 50 * 2 ** Math.min(attempt, 7)) * (0.5 + Math.random() / 2)

export interface LaneDeps {
  readonly sql: Sql
  readonly nc: NatsConnection
  readonly relay: OutboxRelayShape
  readonly namespace: string
  readonly partitions: number
  /** What the handlers may use beside their transaction (Actor.ActorServices). */
  readonly services: Context.Context<ActorServices>
}

/**
 * Applies the envelopes of a fixed set of partitions (of one actor type, in this worker) in groups: whatever is
 * queued, up to GROUP_MAX, goes into one transaction with one fence check over the partitions involved, then every
 * reply, ack and outbox publish. Groups run one after another, so each partition's envelopes apply in stream order;
 * a worker runs a few lanes per actor type, each over its own partitions, so groups of different lanes overlap.
 * Grouping across partitions is what makes groups large: one partition alone rarely has more than one envelope waiting.
 */
export class Lane {
  private readonly deps: LaneDeps
  private readonly actor: AnyActor
  private readonly queue = Effect.runSync(Queue.bounded<Item, Cause.Done>(QUEUE_MAX))
  private readonly fiber: Fiber.Fiber<void>

  constructor(deps: LaneDeps, actor: AnyActor) {
    this.deps = deps
    this.actor = actor
    this.fiber = Effect.runFork(this.loop())
  }

  /** Queues an envelope; waits while the lane is full (back-pressure on the partition's intake). */
  offer(item: Item): Effect.Effect<boolean> {
    return Queue.offer(this.queue, item)
  }

  /**
   * After every partition of the lane stopped: applies what is still queued, then ends. Past `deadline` (epoch ms) the
   * group in progress is given up (interrupted: its transaction never commits, its envelopes stay unacked and are
   * redelivered to the next owner).
   */
  stop(deadline = Number.POSITIVE_INFINITY): Effect.Effect<void> {
    const self = this
    return Effect.gen(function*() {
      yield* Queue.end(self.queue)
      if (yield* untilDeadline(Fiber.await(self.fiber), deadline)) return
      log("warn", "lane did not finish in time; its group in progress is given up", { actor: self.actor.protocol.name })
      yield* untilDeadline(Fiber.interrupt(self.fiber), (yield* Clock.currentTimeMillis) + 1_000)
    })
  }

  private loop(): Effect.Effect<void> {
    const self = this
    return Effect.gen(function*() {
      for (;;) {
        const taken = yield* Queue.takeBetween(self.queue, 1, GROUP_MAX)
        const items: Array<Item> = []
        for (const item of taken) {
          if (item.source.abandoned) item.source.settled(item) // not acked: the next owner gets it again
          else items.push(item)
        }
        if (items.length > 0) yield* self.apply(items)
      }
    }).pipe(Effect.catchCause((cause) => Cause.hasInterruptsOnly(cause) || Cause.isDone(Cause.squash(cause)) ? Effect.void : Effect.sync(() =>
      log("error", "lane stopped", { actor: self.actor.protocol.name, error: errorText(Cause.squash(cause)) }))))
  }

  /** A group, retried while the database is away or conflicts; past that, its envelopes one by one. */
  private apply(group: ReadonlyArray<Item>): Effect.Effect<void> {
    const self = this
    return Effect.gen(function*() {
      let items = group
      for (let attempt = 1, conflicts = 0, logicFailures = 0; items.length > 0; attempt++) {
        const exit = yield* Effect.exit(applyGroup(self.deps.sql, self.actor, items.map((i) => i.envelope), {
          namespace: self.deps.namespace,
          partitions: self.deps.partitions,
          fences: items.map((i) => i.source.fence)
        }).pipe(Effect.provideContext(self.deps.services)))
        if (Exit.isSuccess(exit)) {
          self.finish(items, exit.value)
          // Published beside the next group, not before it: the lane's pace is the database's, not the stream's.
          if (exit.value.rows.length > 0) yield* Effect.forkDetach(self.deps.relay.publish(exit.value.rows))
          return
        }
        const error = Cause.squash(exit.cause)
        if (error instanceof LeaseLost) {
          // Those partitions are another worker's now: drop their envelopes unacked and apply the rest.
          const lost = new Set(error.lost.map((f) => f.partition))
          log("warn", "lease lost; abandoning partitions", { actor: self.actor.protocol.name, partitions: [...lost] })
          for (const i of items) if (lost.has(i.source.fence.partition) && !i.source.abandoned) i.source.lost()
          for (const i of items) if (lost.has(i.source.fence.partition)) i.source.settled(i)
          items = items.filter((i) => !lost.has(i.source.fence.partition))
          continue
        }
        Metrics.processed.inc({ actor: self.actor.protocol.name, result: "failed" }, items.length)
        const unavailable = error instanceof DatabaseUnavailable
        const refused = dataFault(error)
        if (error instanceof DatabaseError && error.retryable) conflicts++
        else if (!unavailable) logicFailures++
        log(unavailable ? "warn" : "error", "group failed", { actor: self.actor.protocol.name, envelopes: items.length, attempt, error: errorText(error) })
        if (items.length > 1 && (logicFailures > 0 || conflicts > GROUP_CONFLICT_RETRIES)) {
          // Isolate the envelope at fault: each alone, in order (per-key order holds), each with its own attempts.
          for (const item of items) yield* self.apply([item])
          return
        }
        if (items.length === 1 && refused !== undefined) {
          return yield* giveUp(self.deps, self.actor.protocol.name, items[0]!, errorText(error), attempt, { _tag: "Rejected", message: refused })
        }
        if (items.length === 1 && logicFailures >= MAX_LOGIC_ATTEMPTS) return yield* giveUp(self.deps, self.actor.protocol.name, items[0]!, errorText(error), attempt)
        for (const i of items) i.msg.working()
        yield* Effect.sleep(backoff(attempt))
        // A partition lost meanwhile: its envelopes are the next owner's (settled here, unacked).
        for (const i of items) if (i.source.abandoned) i.source.settled(i)
        items = items.filter((i) => !i.source.abandoned)
      }
    })
  }

  private finish(items: ReadonlyArray<Item>, { results }: GroupApplied): void {
    crashAfterCommit(items.map((i) => i.envelope.key))
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!
      const { msg, envelope } = item
      const applied = results[i]!
      if (envelope.reply_to) reply(this.deps.nc, envelope, applied.exit)
      ack(msg)
      item.source.settled(item)
      Metrics.processed.inc({ actor: envelope.actor, result: applied.duplicate ? "duplicate" : "applied" })
      log("debug", "applied", {
        envelope_id: envelope.id, tenant_id: envelope.tenant_id, actor: envelope.actor, partition: item.source.fence.partition,
        duplicate: applied.duplicate, answer: applied.exit._tag
      })
    }
  }
}
