import type { Consumer, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream"
import { Cause, Effect, Exit, Fiber, Stream } from "effect"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { Metrics } from "../../core/observability/metrics.ts"
import { decode, ENVELOPE_VERSION, type Envelope, versionOf } from "../../streams/envelope.ts"
import { Envelopes } from "../../streams/topics.ts"
import { consumerName, ingressStream } from "../../streams/subjects.ts"
import { resetPartitionConsumer } from "../../streams/topology.ts"
import type { AnyActor } from "./Actor.ts"
import { recordDeadLetter } from "./deadLetters.ts"
import type { Lane } from "./Lane.ts"
import type { Item, Source } from "./settle.ts"
import type { Fence } from "./leases.ts"
import { untilDeadline } from "./untilDeadline.ts"

export interface PartitionDeps {
  readonly sql: Sql
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly namespace: string
  readonly ackWaitMs: number
  /** The lane that applies this actor type's partition. */
  readonly laneFor: (actor: string, partition: number) => Lane
}

const FETCH_BATCH = 128

/**
 * How long one pull waits for messages before the next replaces it. Each pull is a request to the server and ends in
 * a timeout status when nothing came: at 1 s, 12 actor types x 16 partitions made 192 pulls and 192 timeouts a second
 * on an idle platform (a tenth of a core of nats-server and of the worker, doing nothing). A stale pull is no risk to
 * a handover: each new owner deletes the partition's consumer and makes it afresh (resetPartitionConsumer), which
 * ends every pull of the old one; a stop interrupts the intake without waiting for its pull to end. What it bounds
 * is the wait after a NATS node holding the pull is lost, before it is asked again elsewhere.
 */
const FETCH_EXPIRES_MS = 5_000

/** How long an envelope of a newer release waits before it is offered again (to whichever worker owns it by then). */
const NEWER_VERSION_DELAY_MS = 5_000

/**
 * Consumes one partition of one actor type while this worker holds its lease: an intake fiber pulls bounded batches
 * from the partition's durable consumer and queues them on the partition's lane, which applies them (in groups with
 * other partitions' envelopes) and settles each one. A full lane blocks the intake: back-pressure, not memory.
 */
export class PartitionConsumer implements Source {
  readonly fence: Fence
  private readonly deps: PartitionDeps
  private readonly actor: AnyActor
  private readonly onLost: (c: PartitionConsumer) => void
  private intake: Fiber.Fiber<void> | undefined
  /** Set when the lease was lost: what is still queued is dropped unacked (the next owner gets it again). */
  abandoned = false
  /** Envelopes queued or being applied, by key. */
  private readonly outstanding = new Map<string, number>()
  private count = 0
  /** Said once per consumer: the log is for the operator, the metric counts every deferral. */
  private warnedNewer = false
  private drained: (() => void) | undefined

  constructor(deps: PartitionDeps, actor: AnyActor, fence: Fence, onLost: (c: PartitionConsumer) => void) {
    this.deps = deps
    this.actor = actor
    this.fence = fence
    this.onLost = onLost
  }

  get partition(): number {
    return this.fence.partition
  }

  /** Keys with envelopes queued or being applied. */
  get liveActors(): number {
    return this.outstanding.size
  }

  /** Envelopes fetched and not yet settled. */
  get depth(): number {
    return this.count
  }

  /** A failure here (NATS away) reaches the ownership loop, which releases the lease and tries again next tick. */
  async start(): Promise<void> {
    const { js, jsm, namespace, ackWaitMs } = this.deps
    const name = this.actor.protocol.name
    await resetPartitionConsumer(jsm, namespace, name, this.partition, ackWaitMs)
    const consumer = await js.consumers.get(ingressStream(namespace), consumerName(namespace, name, this.partition))
    this.intake = Effect.runFork(this.intakeLoop(consumer))
  }

  readonly settled = (item: Item): void => {
    const key = item.envelope.key
    const n = (this.outstanding.get(key) ?? 1) - 1
    if (n === 0) this.outstanding.delete(key)
    else this.outstanding.set(key, n)
    if (--this.count === 0) this.drained?.()
  }

  readonly lost = (): void => {
    this.abandoned = true
    this.onLost(this)
  }

  /**
   * `drain`: stop fetching, let the lane apply and ack what was fetched (graceful handover or shutdown), until
   * `deadline` (epoch ms): what is not applied by then is abandoned, left unacked for the next owner, as a lost lease
   * leaves it (a drain waiting on a database that does not answer must not hold a handover or a shutdown forever).
   * `abandon`: the lease is gone; stop at once and leave the rest unacked for the next owner.
   */
  stop(mode: "drain" | "abandon", deadline = Number.POSITIVE_INFINITY): Effect.Effect<void> {
    const self = this
    return Effect.gen(function*() {
      if (mode === "abandon") self.abandoned = true
      if (self.intake) yield* Fiber.interrupt(self.intake)
      // Checked when the wait begins: the last envelope may settle while the intake is being interrupted.
      const drained = Effect.callback<void>((resume) => {
        if (self.count === 0) resume(Effect.void)
        else self.drained = () => resume(Effect.void)
      })
      if (!(yield* untilDeadline(drained, deadline))) {
        self.abandoned = true
        log("warn", "drain did not finish in time; the rest is left unacked for the next owner", {
          actor: self.actor.protocol.name, partition: self.partition, envelopes: self.count
        })
      }
    })
  }

  private intakeLoop(consumer: Consumer): Effect.Effect<void> {
    const lane = this.deps.laneFor(this.actor.protocol.name, this.partition)
    const self = this
    return Effect.gen(function*() {
      for (;;) {
        const fetched = yield* Effect.tryPromise(() => consumer.fetch({ max_messages: FETCH_BATCH, expires: FETCH_EXPIRES_MS })).pipe(
          Effect.flatMap((batch) => Stream.fromAsyncIterable(batch, (e) => e).pipe(Stream.runForEach((msg) => {
            const item = self.itemOf(msg)
            if (item === undefined) return Effect.void
            // Counted before it is queued; an offer cut short (or refused by a stopped lane) settles it unacked.
            return lane.offer(item).pipe(
              Effect.onInterrupt(() => Effect.sync(() => self.settled(item))),
              Effect.tap((queued) => (queued ? Effect.void : Effect.sync(() => self.settled(item))))
            )
          }))),
          Effect.exit
        )
        if (Exit.isFailure(fetched) && !Cause.hasInterruptsOnly(fetched.cause)) {
          log("warn", "fetch failed", { actor: self.actor.protocol.name, partition: self.partition, error: errorText(Cause.squash(fetched.cause)) })
          yield* Effect.sleep(500)
        }
      }
    })
  }

  private itemOf(msg: JsMsg): Item | undefined {
    let envelope: Envelope
    try {
      // The format version first: a newer release's envelope may not fit this release's schema, and is left for it.
      const unpacked = decode(msg.data) as { readonly v?: number } | null
      const version = versionOf(unpacked ?? {})
      if (version > ENVELOPE_VERSION) return this.deferNewer(msg, version)
      envelope = Envelopes.fromUnpacked(unpacked)
    } catch (e) {
      void this.deadLetterUndecodable(msg, errorText(e))
      return undefined
    }
    if (msg.info.redelivered) Metrics.redelivered.inc({ actor: envelope.actor })
    this.count++
    this.outstanding.set(envelope.key, (this.outstanding.get(envelope.key) ?? 0) + 1)
    return { msg, envelope, source: this }
  }

  /**
   * An envelope written by a newer release (a rolling upgrade, with ingresses upgraded before every worker): not
   * understood here, so neither applied nor dead-lettered but left for a newer worker, offered again after a delay.
   */
  private deferNewer(msg: JsMsg, version: number): undefined {
    msg.nak(NEWER_VERSION_DELAY_MS)
    Metrics.deferred.inc({ actor: this.actor.protocol.name, reason: "newer_version" })
    if (!this.warnedNewer) {
      this.warnedNewer = true
      log("warn", "envelope of a newer release left for a newer worker: upgrade the workers before the ingresses", {
        actor: this.actor.protocol.name, partition: this.partition, version, understood: ENVELOPE_VERSION
      })
    }
    return undefined
  }

  /** Bytes that are no envelope at all: kept whole for an operator, then acked. */
  private async deadLetterUndecodable(msg: JsMsg, error: string): Promise<void> {
    try {
      await recordDeadLetter(this.deps.sql, msg, {
        envelopeId: `seq-${msg.seq}`, tenantId: null, actor: this.actor.protocol.name, error: `undecodable envelope: ${error}`, attempts: 1
      })
      msg.ack()
    } catch (e) {
      log("warn", "dead-lettering failed; redelivered later", { error: errorText(e) })
    }
  }
}
