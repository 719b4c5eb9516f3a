import type { ConsumerMessages, JetStreamClient, JsMsg } from "@nats-io/jetstream"
import { errorText, log } from "../../core/observability/log.ts"
import { subscriptionConsumer, webhookStream } from "../../streams/webhookTopology.ts"

/** Attempts in flight per subscription in one worker process: a slow partner gets this many sockets, no more. */
export const CONCURRENCY_PER_SUBSCRIPTION = 4

/**
 * The delivery loop of one subscription: its own durable consumer, at most CONCURRENCY_PER_SUBSCRIPTION attempts at
 * once. The client buffer holds no more than that, so a message never waits in memory longer than one attempt's
 * deadline (well inside ack_wait); retries wait in JetStream (nak with delay), not here.
 */
export class SubscriptionChannel {
  readonly subscriptionId: string
  private readonly js: JetStreamClient
  private readonly namespace: string
  private readonly handle: (m: JsMsg) => Promise<void>
  private messages: ConsumerMessages | undefined
  private readonly inFlight = new Set<Promise<void>>()
  private wake: (() => void) | undefined
  private stopping = false
  private loop: Promise<void> | undefined

  constructor(js: JetStreamClient, namespace: string, subscriptionId: string, handle: (m: JsMsg) => Promise<void>) {
    this.js = js
    this.namespace = namespace
    this.subscriptionId = subscriptionId
    this.handle = handle
  }

  get closed(): boolean {
    return this.loop === undefined && !this.stopping
  }

  async start(): Promise<void> {
    const consumer = await this.js.consumers.get(webhookStream(this.namespace), subscriptionConsumer(this.namespace, this.subscriptionId))
    this.messages = await consumer.consume({ max_messages: CONCURRENCY_PER_SUBSCRIPTION })
    this.loop = this.run(this.messages).catch((e) => {
      if (!this.stopping) log("warn", "webhook channel ended", { subscription_id: this.subscriptionId, error: errorText(e) })
    }).finally(() => (this.loop = undefined))
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      if (this.stopping) break
      while (this.inFlight.size >= CONCURRENCY_PER_SUBSCRIPTION) await new Promise<void>((r) => (this.wake = r))
      const p: Promise<void> = this.handle(m)
        .catch((e) => {
          log("error", "webhook attempt failed unexpectedly", { subscription_id: this.subscriptionId, error: errorText(e) })
          m.nak(30_000)
        })
        .finally(() => {
          this.inFlight.delete(p)
          this.wake?.()
          this.wake = undefined
        })
      this.inFlight.add(p)
    }
  }

  /** Stops pulling; attempts in flight finish (each bounded by its deadline); unacked messages are redelivered. */
  async stop(): Promise<void> {
    this.stopping = true
    await this.messages?.close().catch(() => undefined)
    this.wake?.()
    await Promise.allSettled([...this.inFlight])
    await this.loop
  }
}
