import type { ConsumerMessages, JsMsg, JetStreamClient } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import type { Sql } from "../../src/db/Database.ts"
import { errorText, log } from "../../src/observability/log.ts"
import { decode, encode, type Envelope, type Reply } from "../../streams/envelope.ts"
import { consumerName, ingressStream } from "../../streams/subjects.ts"
import { applyEnvelope, isInfrastructureFailure } from "./applyEnvelope.ts"
import type { OutboxRelay } from "./OutboxRelay.ts"
import type { ActorHandler } from "./types.ts"

export interface PartitionDeps {
  readonly sql: Sql
  readonly nc: NatsConnection
  readonly js: JetStreamClient
  readonly relay: OutboxRelay
  readonly namespace: string
}

/** Attempts on a message that fails for a reason other than unavailable infrastructure before it is dead-lettered. */
const MAX_LOGIC_ATTEMPTS = 5
const MAX_IN_FLIGHT = 256
/**
 * Fault injection for tests: a worker started with this variable dies (SIGKILL) right after committing a message
 * of that actor key and before acking it, the window the inbox exists for. Unset in any real deployment.
 */
const CRASH_AFTER_COMMIT = process.env.GEP_FAULT_CRASH_AFTER_COMMIT_KEY
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Consumes one partition of one actor type through its durable pull consumer. Each key gets a serial mailbox (a
 * promise chain), so messages of one key apply in stream order while different keys run concurrently. A mailbox
 * exists only while it has work: an idle actor holds no memory (state lives in PostgreSQL).
 */
export class PartitionConsumer {
  private readonly deps: PartitionDeps
  private readonly handler: ActorHandler
  readonly partition: number
  private readonly mailboxes = new Map<string, Promise<void>>()
  private messages: ConsumerMessages | undefined
  private inFlight = 0
  private wakeIntake: (() => void) | undefined
  private stopping = false
  private loop: Promise<void> | undefined

  constructor(deps: PartitionDeps, handler: ActorHandler, partition: number) {
    this.deps = deps
    this.handler = handler
    this.partition = partition
  }

  get liveActors(): number {
    return this.mailboxes.size
  }

  async start(): Promise<void> {
    const { js, namespace } = this.deps
    const consumer = await js.consumers.get(ingressStream(namespace), consumerName(namespace, this.handler.actor, this.partition))
    this.messages = await consumer.consume({ max_messages: 128 })
    this.loop = this.run(this.messages)
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      if (this.stopping) break
      while (this.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => (this.wakeIntake = r))
      this.dispatch(m)
    }
  }

  private dispatch(m: JsMsg): void {
    let envelope: Envelope
    try {
      envelope = decode<Envelope>(m.data)
    } catch (e) {
      void this.deadLetter(m, undefined, `undecodable envelope: ${errorText(e)}`, 1).then(() => m.ack())
      return
    }
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
      if (this.stopping) return // not acked: redelivered to the next owner, in order
      try {
        const outcome = await applyEnvelope(sql, this.handler, envelope, { namespace })
        if (CRASH_AFTER_COMMIT !== undefined && CRASH_AFTER_COMMIT === envelope.key) process.kill(process.pid, "SIGKILL")
        if (envelope.reply_to) this.reply(nc, envelope, outcome.reply)
        m.ack()
        if (outcome.outbox.length > 0) await relay.publish(outcome.outbox)
        log("debug", "applied", { ...ids, duplicate: outcome.duplicate, status: outcome.reply.status })
        return
      } catch (e) {
        if (!isInfrastructureFailure(e)) logicFailures++
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
        if (this.stopping) throw e
        m.working()
        await sleep(1_000)
      }
    }
  }

  /** Stops intake, lets every mailbox finish its current message, and leaves the rest unacked for redelivery. */
  async stop(): Promise<void> {
    this.stopping = true
    await this.messages?.close().catch(() => undefined)
    this.wakeIntake?.()
    await Promise.allSettled([...this.mailboxes.values()])
    await this.loop?.catch(() => undefined)
  }
}
