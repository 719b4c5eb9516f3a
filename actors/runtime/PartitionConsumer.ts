import type { JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { Cause, Effect, Exit, Fiber, Queue, Stream } from "effect"
import { DatabaseError, DatabaseUnavailable } from "../../core/db/DatabaseFailure.ts"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { Metrics } from "../../core/observability/metrics.ts"
import type { ReplyExit } from "../../streams/ActorProtocol.ts"
import { decode, encode, type Envelope, type Reply } from "../../streams/envelope.ts"
import { consumerName, ingressStream } from "../../streams/subjects.ts"
import { resetPartitionConsumer } from "../../streams/topology.ts"
import type { AnyActor } from "./Actor.ts"
import { type Applied, applyGroup } from "./applyGroup.ts"
import { crashAfterCommit } from "./faults.ts"
import { type Fence, LeaseLost } from "./leases.ts"
import type { OutboxRelay } from "./OutboxRelay.ts"

export interface PartitionDeps {
  readonly sql: Sql
  readonly nc: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly relay: OutboxRelay
  readonly namespace: string
  readonly ackWaitMs: number
}

/** Attempts on an envelope that fails for a reason other than unavailable infrastructure before it is dead-lettered. */
const MAX_LOGIC_ATTEMPTS = 5
/** Re-runs of a whole group after a deadlock or serialization failure before its envelopes are applied one by one. */
const GROUP_CONFLICT_RETRIES = 3
/** Envelopes applied in one transaction at most. */
const GROUP_MAX = 128
/** Messages fetched and not yet acked, per partition: the bound that turns a slow database into back-pressure. */
const INTAKE_MAX = 512
const FETCH_BATCH = 128

const backoff = (attempt: number) => Math.min(5_000, 50 * 2 ** Math.min(attempt, 7)) * (0.5 + Math.random() / 2)

interface Item {
  readonly msg: JsMsg
  readonly envelope: Envelope
}

/**
 * Consumes one partition of one actor type while this worker holds its lease. An intake fiber pulls bounded
 * batches into a bounded queue; an applier fiber takes whatever is queued (up to GROUP_MAX) and applies it as one
 * group: one transaction, one fence check, one commit, then every reply, ack and outbox publish. One group at a time
 * keeps per-key order across groups; inside a group the keys run concurrently.
 */
export class PartitionConsumer {
  readonly fence: Fence
  private readonly deps: PartitionDeps
  private readonly actor: AnyActor
  private readonly onLost: (c: PartitionConsumer) => void
  private readonly queue = Effect.runSync(Queue.bounded<JsMsg, Cause.Done>(INTAKE_MAX))
  private intake: Fiber.Fiber<void> | undefined
  private applier: Fiber.Fiber<void> | undefined
  private abandoned = false
  private group: ReadonlyArray<Item> = []

  constructor(deps: PartitionDeps, actor: AnyActor, fence: Fence, onLost: (c: PartitionConsumer) => void) {
    this.deps = deps
    this.actor = actor
    this.fence = fence
    this.onLost = onLost
  }

  get partition(): number {
    return this.fence.partition
  }

  /** Keys being applied right now. */
  get liveActors(): number {
    return new Set(this.group.map((i) => i.envelope.key)).size
  }

  /** Messages fetched and not yet acked. */
  get depth(): number {
    return Effect.runSync(Queue.size(this.queue)) + this.group.length
  }

  async start(): Promise<void> {
    const { jsm, namespace, ackWaitMs } = this.deps
    await resetPartitionConsumer(jsm, namespace, this.actor.protocol.name, this.partition, ackWaitMs)
    this.intake = Effect.runFork(this.intakeLoop())
    this.applier = Effect.runFork(this.applyLoop())
  }

  /**
   * `drain`: stop fetching, apply and ack what was fetched (graceful handover or shutdown).
   * `abandon`: the lease is gone; stop at once and leave the rest unacked for the next owner.
   */
  async stop(mode: "drain" | "abandon"): Promise<void> {
    if (mode === "abandon") this.abandoned = true
    if (this.intake) await Effect.runPromise(Fiber.interrupt(this.intake))
    if (mode === "abandon" && this.applier) await Effect.runPromise(Fiber.interrupt(this.applier))
    Effect.runSync(Queue.end(this.queue))
    if (this.applier) await Effect.runPromise(Fiber.await(this.applier))
  }

  private intakeLoop(): Effect.Effect<void> {
    const { js, namespace } = this.deps
    const self = this
    return Effect.gen(function*() {
      const consumer = yield* Effect.promise(() => js.consumers.get(ingressStream(namespace), consumerName(namespace, self.actor.protocol.name, self.partition)))
      for (;;) {
        const fetched = yield* Effect.tryPromise(() => consumer.fetch({ max_messages: FETCH_BATCH, expires: 1_000 })).pipe(
          Effect.flatMap((batch) => Stream.fromAsyncIterable(batch, (e) => e).pipe(Stream.runForEach((m) => Queue.offer(self.queue, m)))),
          Effect.exit
        )
        if (Exit.isFailure(fetched)) {
          log("warn", "fetch failed", { actor: self.actor.protocol.name, partition: self.partition, error: errorText(Cause.squash(fetched.cause)) })
          yield* Effect.sleep(500)
        }
      }
    })
  }

  private applyLoop(): Effect.Effect<void> {
    const self = this
    return Effect.gen(function*() {
      for (;;) {
        const msgs = yield* Queue.takeBetween(self.queue, 1, GROUP_MAX)
        const items = self.decodeAll(msgs)
        if (items.length === 0) continue
        self.group = items
        yield* self.applyItems(items)
        self.group = []
        if (self.abandoned) return
      }
    }).pipe(Effect.catchCause((cause) => Cause.hasInterruptsOnly(cause) || Cause.isDone(Cause.squash(cause)) ? Effect.void : Effect.sync(() =>
      log("error", "partition applier stopped", { actor: self.actor.protocol.name, partition: self.partition, error: errorText(Cause.squash(cause)) }))))
  }

  private decodeAll(msgs: ReadonlyArray<JsMsg>): Array<Item> {
    const items: Array<Item> = []
    for (const msg of msgs) {
      let envelope: Envelope
      try {
        envelope = decode<Envelope>(msg.data)
      } catch (e) {
        void this.deadLetter(msg, undefined, `undecodable envelope: ${errorText(e)}`, 1).then(() => msg.ack(), () => undefined)
        continue
      }
      if (msg.info.redelivered) Metrics.redelivered.inc({ actor: envelope.actor })
      items.push({ msg, envelope })
    }
    return items
  }

  /** A group, retried while the database is away or conflicts; past that, its envelopes one by one. */
  private applyItems(items: ReadonlyArray<Item>): Effect.Effect<void> {
    const self = this
    const ids = { actor: this.actor.protocol.name, partition: this.partition, envelopes: items.length }
    return Effect.gen(function*() {
      for (let attempt = 1, conflicts = 0, logicFailures = 0; ; attempt++) {
        if (self.abandoned) return
        const exit = yield* Effect.exit(applyGroup(self.deps.sql, self.actor, items.map((i) => i.envelope), { namespace: self.deps.namespace, fence: self.fence }))
        if (Exit.isSuccess(exit)) return self.finish(items, exit.value)
        const error = Cause.squash(exit.cause)
        if (error instanceof LeaseLost) {
          log("warn", "lease lost; abandoning partition", { ...ids, epoch: self.fence.epoch })
          self.abandoned = true
          self.onLost(self)
          return
        }
        Metrics.processed.inc({ actor: ids.actor, result: "failed" }, items.length)
        const unavailable = error instanceof DatabaseUnavailable
        if (error instanceof DatabaseError && error.retryable) conflicts++
        else if (!unavailable) logicFailures++
        log(unavailable ? "warn" : "error", "group failed", { ...ids, attempt, error: errorText(error) })
        if (items.length > 1 && (logicFailures > 0 || conflicts > GROUP_CONFLICT_RETRIES)) {
          // Isolate the envelope at fault: each alone, in order (per-key order holds), each with its own attempts.
          for (const item of items) yield* self.applyItems([item])
          return
        }
        if (items.length === 1 && logicFailures >= MAX_LOGIC_ATTEMPTS) return yield* Effect.promise(() => self.giveUp(items[0]!, errorText(error), attempt))
        for (const i of items) i.msg.working()
        yield* Effect.sleep(backoff(attempt))
      }
    })
  }

  private finish(items: ReadonlyArray<Item>, results: ReadonlyArray<Applied>): void {
    crashAfterCommit(items.map((i) => i.envelope.key))
    const outbox = []
    for (let i = 0; i < items.length; i++) {
      const { msg, envelope } = items[i]!
      const applied = results[i]!
      if (envelope.reply_to) this.reply(envelope, applied.exit)
      msg.ack()
      outbox.push(...applied.outbox)
      Metrics.processed.inc({ actor: envelope.actor, result: applied.duplicate ? "duplicate" : "applied" })
      log("debug", "applied", { envelope_id: envelope.id, tenant_id: envelope.tenant_id, actor: envelope.actor, partition: this.partition, duplicate: applied.duplicate, answer: applied.exit._tag })
    }
    if (outbox.length > 0) void this.deps.relay.publish(outbox)
  }

  private reply(envelope: Envelope, exit: ReplyExit): void {
    const message: Reply = { envelope_id: envelope.id, exit }
    try {
      this.deps.nc.publish(envelope.reply_to!, encode(message))
    } catch (e) {
      log("warn", "reply not sent", { envelope_id: envelope.id, error: errorText(e) })
    }
  }

  /** Kept whole in dead_letters for an operator; the caller is answered with a defect; the message is acked. */
  private async giveUp(item: Item, error: string, attempts: number): Promise<void> {
    await this.deadLetter(item.msg, item.envelope, error, attempts)
    if (item.envelope.reply_to) this.reply(item.envelope, { _tag: "Defect", message: "The request could not be applied and was recorded for an operator" })
    item.msg.ack()
    Metrics.processed.inc({ actor: item.envelope.actor, result: "dead_lettered" })
  }

  private async deadLetter(m: JsMsg, envelope: Envelope | undefined, error: string, attempts: number): Promise<void> {
    for (;;) {
      try {
        await this.deps.sql`
          INSERT INTO dead_letters (envelope_id, tenant_id, actor, subject, payload, error, attempts)
          VALUES (${envelope?.id ?? `seq-${m.seq}`}, ${envelope?.tenant_id ?? null}, ${this.actor.protocol.name},
                  ${m.subject}, ${Buffer.from(m.data)}, ${error}, ${attempts})
          ON CONFLICT (envelope_id) DO NOTHING`
        log("error", "dead-lettered", { envelope_id: envelope?.id, tenant_id: envelope?.tenant_id, error })
        return
      } catch (e) {
        if (this.abandoned) throw e
        m.working()
        await new Promise((r) => setTimeout(r, 1_000))
      }
    }
  }
}
