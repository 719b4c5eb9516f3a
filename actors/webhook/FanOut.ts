import type { ConsumerMessages, JetStreamClient, JsMsg } from "@nats-io/jetstream"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { decode, encode } from "../../streams/envelope.ts"
import { outboxStream } from "../../streams/subjects.ts"
import { deliverySubject, fanOutConsumer } from "../../streams/webhookTopology.ts"
import { webhookBody, type DeliveryJob, type WebhookCommand } from "./job.ts"

export interface FanOutDeps {
  readonly sql: Sql
  readonly js: JetStreamClient
  readonly namespace: string
  /** Called before publishing to a subscription, so this process consumes its subject without waiting for a sync. */
  readonly attach: (subscriptionId: string) => Promise<void>
}

const CONCURRENCY = 16

/**
 * Turns each outbox webhook command into one delivery job per enabled subscription of the same tenant and mode that
 * listens to its event type, then acks the command. Jobs carry Nats-Msg-Id `<event>:<subscription>`, so a command
 * redelivered after a crash mid-fan-out publishes nothing twice (within the stream's duplicate window). The fan-out
 * never calls a partner: it takes milliseconds whatever the partners do.
 */
export class FanOut {
  private readonly deps: FanOutDeps
  private messages: ConsumerMessages | undefined
  private readonly inFlight = new Set<Promise<void>>()
  private wake: (() => void) | undefined
  private loop: Promise<void> | undefined

  constructor(deps: FanOutDeps) {
    this.deps = deps
  }

  async start(): Promise<void> {
    const consumer = await this.deps.js.consumers.get(outboxStream(this.deps.namespace), fanOutConsumer(this.deps.namespace))
    this.messages = await consumer.consume({ max_messages: 64 })
    this.loop = this.run(this.messages)
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      while (this.inFlight.size >= CONCURRENCY) await new Promise<void>((r) => (this.wake = r))
      const p: Promise<void> = this.handle(m).finally(() => {
        this.inFlight.delete(p)
        this.wake?.()
        this.wake = undefined
      })
      this.inFlight.add(p)
    }
  }

  private async handle(m: JsMsg): Promise<void> {
    let command: WebhookCommand
    try {
      command = decode<WebhookCommand>(m.data)
    } catch (e) {
      log("error", "webhook command undecodable, dropped", { seq: m.seq, error: errorText(e) })
      return m.term()
    }
    // The outbox row id (its Nats-Msg-Id) names the event for every subscription and attempt.
    const eventId = m.headers?.get("Nats-Msg-Id") || `${outboxStream(this.deps.namespace)}:${m.seq}`
    try {
      const targets = await this.deps.sql`
        SELECT id FROM webhook_subscriptions
        WHERE tenant_id = ${command.tenant_id} AND sandbox = ${command.sandbox} AND enabled
          AND (${command.event_type} = ANY(event_types) OR '*' = ANY(event_types))`
      const body = webhookBody(command)
      await Promise.all(targets.map(async (t) => {
        const subscriptionId = t.id as string
        await this.deps.attach(subscriptionId)
        const job: DeliveryJob = {
          event_id: eventId, subscription_id: subscriptionId, tenant_id: command.tenant_id, sandbox: command.sandbox,
          event_type: command.event_type, body
        }
        await this.deps.js.publish(deliverySubject(this.deps.namespace, subscriptionId), encode(job), { msgID: `${eventId}:${subscriptionId}` })
      }))
      m.ack()
      if (targets.length > 0) log("debug", "webhook fanned out", { tenant_id: command.tenant_id, event_id: eventId, event_type: command.event_type, subscriptions: targets.length })
    } catch (e) {
      log("warn", "webhook fan-out deferred", { event_id: eventId, error: errorText(e) })
      m.nak(2_000)
    }
  }

  async stop(): Promise<void> {
    await this.messages?.close().catch(() => undefined)
    this.wake?.()
    await Promise.allSettled([...this.inFlight])
    await this.loop?.catch(() => undefined)
  }
}
