import type { ConsumerMessages, JsMsg } from "@nats-io/jetstream"
import { errorText, log } from "../../core/observability/log.ts"
import { encode } from "../../streams/envelope.ts"
import { WebhookCommands } from "../../streams/topics.ts"
import { outboxStream } from "../../streams/subjects.ts"
import { deliverySubject, fanOutConsumer } from "../../streams/webhookTopology.ts"
import { recordEmitted } from "./emitted.ts"
import { webhookBody, type DeliveryJob, type FanOutDeps } from "./job.ts"
import { isRedeliver, type RedeliverCommand, type WebhookCommand } from "./protocol.ts"
import { redeliver } from "./redeliver.ts"

/** Batches being fanned out at once. */
const CONCURRENCY = 4
/** Commands fanned out together: one subscription lookup for all of them. */
const BATCH_MAX = 128
/** Commands pulled and not yet acked: the fan-out consumer's max_ack_pending (streams/webhookTopology.ts). */
const FETCH_MAX = 256

interface Target {
  readonly id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly event_types: ReadonlyArray<string>
}

/** One job per subscription the command goes to: the one it names, else every enabled one listening to its type. */
const jobsOf = (command: WebhookCommand, eventId: string, all: ReadonlyArray<Target>): Array<DeliveryJob> => {
  const targets = all.filter((t) =>
    t.tenant_id === command.tenant_id && t.sandbox === command.sandbox &&
    (command.subscription_id !== undefined
      ? t.id === command.subscription_id
      : t.event_types.includes(command.event_type) || t.event_types.includes("*")))
  if (targets.length === 0) return []
  const body = webhookBody(eventId, command)
  const trigger = command.subscription_id === undefined ? "event" : "test"
  return targets.map((t) => ({
    event_id: eventId, subscription_id: t.id, tenant_id: command.tenant_id, sandbox: command.sandbox,
    event_type: command.event_type, body, trigger
  }))
}

/**
 * Turns each outbox webhook command into one delivery job per enabled subscription of the same tenant and mode that
 * listens to its event type, then acks the command. Commands are taken in batches of what has arrived, with one
 * subscription lookup per batch (not per command). Jobs carry Nats-Msg-Id `<event>:<subscription>`, so a command
 * redelivered after a crash mid-fan-out publishes nothing twice (within the stream's duplicate window); each job's body
 * is stored first (webhook_events, 14 days) for resend and replay. A command naming a subscription (`webhook.test`)
 * goes to it alone; a redeliver command (resend, replay) republishes stored bodies. The fan-out never calls a
 * partner: it takes milliseconds whatever the partners do.
 */
export class FanOut {
  private readonly deps: FanOutDeps
  private messages: ConsumerMessages | undefined
  private readonly inFlight = new Set<Promise<void>>()
  private readonly waiting: Array<JsMsg> = []
  private scheduled = false
  private wake: (() => void) | undefined
  private loop: Promise<void> | undefined

  constructor(deps: FanOutDeps) {
    this.deps = deps
  }

  async start(): Promise<void> {
    const consumer = await this.deps.js.consumers.get(outboxStream(this.deps.namespace), fanOutConsumer(this.deps.namespace))
    // At most the consumer's max_ack_pending (a larger pull is refused by the server).
    this.messages = await consumer.consume({ max_messages: FETCH_MAX })
    this.loop = this.run(this.messages)
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      this.waiting.push(m)
      // Whatever arrives in this turn of the event loop joins the batch.
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => void this.drain())
      }
    }
  }

  private async drain(): Promise<void> {
    this.scheduled = false
    while (this.waiting.length > 0) {
      while (this.inFlight.size >= CONCURRENCY) await new Promise<void>((r) => (this.wake = r))
      const batch = this.waiting.splice(0, BATCH_MAX)
      const p: Promise<void> = this.handle(batch).finally(() => {
        this.inFlight.delete(p)
        this.wake?.()
        this.wake = undefined
      })
      this.inFlight.add(p)
    }
  }

  private async handle(batch: ReadonlyArray<JsMsg>): Promise<void> {
    const commands: Array<{ m: JsMsg; command: WebhookCommand; eventId: string }> = []
    for (const m of batch) {
      try {
        // The outbox row id (its Nats-Msg-Id) names the event for every subscription and attempt.
        const eventId = m.headers?.get("Nats-Msg-Id") || `${outboxStream(this.deps.namespace)}:${m.seq}`
        const command = WebhookCommands.decode(m.data)
        if (isRedeliver(command)) void this.redeliver(m, command)
        else commands.push({ m, command, eventId })
      } catch (e) {
        log("error", "webhook command undecodable, dropped", { seq: m.seq, error: errorText(e) })
        m.term()
      }
    }
    if (commands.length === 0) return
    let plans: ReadonlyArray<{ m: JsMsg; eventId: string; jobs: ReadonlyArray<DeliveryJob> }>
    try {
      const targets = await this.targets(commands.map((c) => c.command))
      plans = commands.map(({ m, command, eventId }) => ({ m, eventId, jobs: jobsOf(command, eventId, targets) }))
      // Stored before publishing, for resend and replay: a job never exists without its body on record.
      await recordEmitted(this.deps.sql, plans.flatMap((p) => p.jobs))
    } catch (e) {
      log("warn", "webhook fan-out deferred", { commands: commands.length, error: errorText(e) })
      for (const { m } of commands) m.nak(2_000)
      return
    }
    await Promise.all(plans.map((p) => this.publish(p.m, p.eventId, p.jobs)))
  }

  /** Enabled subscriptions of the commands' tenants and modes, and the ones a command names (a test event). */
  private targets(commands: ReadonlyArray<WebhookCommand>): Promise<ReadonlyArray<Target>> {
    const scopes = [...new Map(commands.map((c) => [`${c.tenant_id}/${c.sandbox}`, c])).values()]
    const named = commands.flatMap((c) => (c.subscription_id ? [c.subscription_id] : []))
    return this.deps.sql<Array<Target>>`
      SELECT id, tenant_id, sandbox, event_types FROM webhook_subscriptions
      WHERE (enabled AND (tenant_id, sandbox) IN (
        SELECT * FROM unnest(${scopes.map((c) => c.tenant_id)}::uuid[], ${scopes.map((c) => String(c.sandbox))}::text[]::boolean[])))
        OR id = ANY(${named}::uuid[])`
  }

  private async publish(m: JsMsg, eventId: string, jobs: ReadonlyArray<DeliveryJob>): Promise<void> {
    try {
      await Promise.all(jobs.map(async (job) => {
        await this.deps.attach(job.subscription_id)
        await this.deps.js.publish(deliverySubject(this.deps.namespace, job.subscription_id), encode(job), { msgID: `${eventId}:${job.subscription_id}` })
      }))
      m.ack()
      if (jobs.length > 0) log("debug", "webhook fanned out", { tenant_id: jobs[0]!.tenant_id, event_id: eventId, event_type: jobs[0]!.event_type, subscriptions: jobs.length })
    } catch (e) {
      log("warn", "webhook fan-out deferred", { event_id: eventId, error: errorText(e) })
      m.nak(2_000)
    }
  }

  private async redeliver(m: JsMsg, command: RedeliverCommand): Promise<void> {
    const p = redeliver(this.deps, m, command).then((events) => {
      m.ack()
      log("info", "webhook events sent again", { tenant_id: command.tenant_id, subscription_id: command.subscription_id, trigger: command.trigger, run_id: command.run_id, events })
    }, (e) => {
      log("warn", "webhook resend deferred", { subscription_id: command.subscription_id, run_id: command.run_id, error: errorText(e) })
      m.nak(2_000)
    }).finally(() => {
      this.inFlight.delete(p)
      this.wake?.()
      this.wake = undefined
    })
    this.inFlight.add(p)
  }

  async stop(): Promise<void> {
    await this.messages?.close().catch(() => undefined)
    await this.drain()
    this.wake?.()
    await Promise.allSettled([...this.inFlight])
    await this.loop?.catch(() => undefined)
  }
}
