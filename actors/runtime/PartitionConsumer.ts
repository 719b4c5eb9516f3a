import type { JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { decode, encode, type Envelope, type Reply } from "../../streams/envelope.ts"
import { consumerName, ingressStream } from "../../streams/subjects.ts"
import { resetPartitionConsumer } from "../../streams/topology.ts"
import { applyEnvelope, isInfrastructureFailure } from "./applyEnvelope.ts"
import { type Fence, LeaseLost } from "./leases.ts"
import { Metrics as WorkerMetrics } from "../../core/observability/metrics.ts"
import type { OutboxRelay } from "./OutboxRelay.ts"
import type { ActorHandler } from "./types.ts"

export interface PartitionDeps {
  readonly sql: Sql
  readonly nc: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly relay: OutboxRelay
  readonly namespace: string
  readonly ackWaitMs: number
}

/** Attempts on a message that fails for a reason other than unavailable infrastructure before it is dead-lettered. */
const MAX_LOGIC_ATTEMPTS = 5
/** Messages of one partition being applied at once (across its keys): the bound that turns a slow database into back-pressure. */
const MAX_IN_FLIGHT = 256
const FETCH_BATCH = 64
/**
 * Fault injection for tests: a worker started with this variable dies (SIGKILL) right after committing a message
 * of that actor key and before acking it, the window the inbox exists for. Unset in any real deployment.
 */
const CRASH_AFTER_COMMIT = process.env.GEP_FAULT_CRASH_AFTER_COMMIT_KEY
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Consumes one partition of one actor type while this worker holds its lease. Messages are pulled in bounded
 * batches (nothing sits in a client buffer) and each key gets a serial mailbox (a promise chain), so messages of one
 * key apply in stream order while different keys run concurrently. A mailbox exists only while it has work: an idle
 * actor holds no memory (its state lives in PostgreSQL).
 */
export class PartitionConsumer {
  private readonly deps: PartitionDeps
  private readonly handler: ActorHandler
  readonly fence: Fence
  private readonly mailboxes = new Map<string, Promise<void>>()
  private inFlight = 0
  private wakeIntake: (() => void) | undefined
  private stopping = false
  /** Set when the lease was lost: in-flight work is abandoned unacked (the next owner redelivers it). */
  private abandoned = false
  private loop: Promise<void> | undefined
  private readonly onLost: (c: PartitionConsumer) => void

  constructor(deps: PartitionDeps, handler: ActorHandler, fence: Fence, onLost: (c: PartitionConsumer) => void) {
    this.deps = deps
    this.handler = handler
    this.fence = fence
    this.onLost = onLost
  }

  get partition(): number {
    return this.fence.partition
  }

  get liveActors(): number {
    return this.mailboxes.size
  }

  get depth(): number {
    return this.inFlight
  }

  async start(): Promise<void> {
    const { jsm, namespace, ackWaitMs } = this.deps
    await resetPartitionConsumer(jsm, namespace, this.handler.actor, this.partition, ackWaitMs)
    this.loop = this.run()
  }

  private async run(): Promise<void> {
    const { js, namespace } = this.deps
    const consumer = await js.consumers.get(ingressStream(namespace), consumerName(namespace, this.handler.actor, this.partition))
    while (!this.stopping) {
      while (this.inFlight >= MAX_IN_FLIGHT && !this.stopping) await new Promise<void>((r) => (this.wakeIntake = r))
      if (this.stopping) break
      try {
        const batch = await consumer.fetch({ max_messages: Math.min(FETCH_BATCH, MAX_IN_FLIGHT - this.inFlight), expires: 1_000 })
        for await (const m of batch) {
          if (this.abandoned) break
          this.dispatch(m)
        }
      } catch (e) {
        if (this.stopping) break
        log("warn", "fetch failed", { actor: this.handler.actor, partition: this.partition, error: errorText(e) })
        await sleep(500)
      }
    }
  }

  private dispatch(m: JsMsg): void {
    let envelope: Envelope
    try {
      envelope = decode<Envelope>(m.data)
    } catch (e) {
      void this.deadLetter(m, undefined, `undecodable envelope: ${errorText(e)}`, 1).then(() => m.ack(), () => undefined)
      return
    }
    if (m.info.redelivered) WorkerMetrics.redelivered.inc({ actor: envelope.actor })
    this.inFlight++
    const previous = this.mailboxes.get(envelope.key) ?? Promise.resolve()
    const next = previous.then(() => this.handle(m, envelope))
    this.mailboxes.set(envelope.key, next)
    void next.finally(() => {
      if (this.mailboxes.get(envelope.key) === next) this.mailboxes.delete(envelope.key)
      this.inFlight--
      this.wakeIntake?.()
      this.wakeIntake = undefined
    })
  }

  private async handle(m: JsMsg, envelope: Envelope): Promise<void> {
    const { sql, nc, relay, namespace } = this.deps
    const ids = { envelope_id: envelope.id, tenant_id: envelope.tenant_id, actor: envelope.actor, partition: this.partition }
    for (let logicFailures = 0, attempt = 1; ; attempt++) {
      if (this.abandoned) return // not acked: the next owner's fresh consumer delivers it again, in order
      try {
        const outcome = await applyEnvelope(sql, this.handler, envelope, { namespace }, this.fence)
        if (CRASH_AFTER_COMMIT !== undefined && CRASH_AFTER_COMMIT === envelope.key) process.kill(process.pid, "SIGKILL")
        if (envelope.reply_to) this.reply(nc, envelope, outcome.reply)
        m.ack()
        WorkerMetrics.processed.inc({ actor: envelope.actor, result: outcome.duplicate ? "duplicate" : "applied" })
        if (outcome.outbox.length > 0) await relay.publish(outcome.outbox)
        log("debug", "applied", { ...ids, duplicate: outcome.duplicate, status: outcome.reply.status })
        return
      } catch (e) {
        if (e instanceof LeaseLost) {
          log("warn", "lease lost; abandoning partition", { ...ids, epoch: this.fence.epoch })
          this.abandoned = true
          this.onLost(this)
          return
        }
        if (!isInfrastructureFailure(e)) logicFailures++
        WorkerMetrics.processed.inc({ actor: envelope.actor, result: "failed" })
        log(logicFailures > 0 ? "error" : "warn", "apply failed", { ...ids, attempt, error: errorText(e) })
        if (logicFailures >= MAX_LOGIC_ATTEMPTS) {
          await this.deadLetter(m, envelope, errorText(e), attempt)
          if (envelope.reply_to) {
            this.reply(nc, envelope, {
              status: 500,
              body: { success: false, error: { message: "Internal error; the request was recorded for an operator", code: "INTERNAL_ERROR", details: {} } }
            })
          }
          m.ack()
          WorkerMetrics.processed.inc({ actor: envelope.actor, result: "dead_lettered" })
          return
        }
        m.working()
        await sleep(Math.min(5_000, 50 * 2 ** Math.min(attempt, 7)) * (0.5 + Math.random() / 2))
      }
    }
  }

  private reply(nc: NatsConnection, envelope: Envelope, reply: { status: number; body: unknown }): void {
    const message: Reply = { envelope_id: envelope.id, status: reply.status, body: reply.body }
    try {
      nc.publish(envelope.reply_to!, encode(message))
    } catch (e) {
      log("warn", "reply not sent", { envelope_id: envelope.id, error: errorText(e) })
    }
  }

  private async deadLetter(m: JsMsg, envelope: Envelope | undefined, error: string, attempts: number): Promise<void> {
    for (;;) {
      try {
        await this.deps.sql`
          INSERT INTO dead_letters (envelope_id, tenant_id, actor, subject, payload, error, attempts)
          VALUES (${envelope?.id ?? `seq-${m.seq}`}, ${envelope?.tenant_id ?? null}, ${this.handler.actor},
                  ${m.subject}, ${Buffer.from(m.data)}, ${error}, ${attempts})
          ON CONFLICT (envelope_id) DO NOTHING`
        log("error", "dead-lettered", { envelope_id: envelope?.id, tenant_id: envelope?.tenant_id, error })
        return
      } catch (e) {
        if (this.abandoned) throw e
        m.working()
        await sleep(1_000)
      }
    }
  }

  /**
   * `drain`: stop fetching, finish and ack everything in flight (graceful handover or shutdown).
   * `abandon`: the lease is gone; stop at once and leave the rest unacked for the next owner.
   */
  async stop(mode: "drain" | "abandon"): Promise<void> {
    this.stopping = true
    if (mode === "abandon") this.abandoned = true
    this.wakeIntake?.()
    await this.loop?.catch(() => undefined)
    await Promise.allSettled([...this.mailboxes.values()])
  }
}
