import type { JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream"
import type { Sql } from "../../core/db/Database.ts"
import { log } from "../../core/observability/log.ts"
import {
  ensureSubscriptionConsumer, removeSubscriptionConsumer, subscriptionIdOf, webhookStream
} from "../../streams/webhookTopology.ts"
import { SubscriptionChannel } from "./SubscriptionChannel.ts"

export interface ChannelsDeps {
  readonly sql: Sql
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  readonly namespace: string
  /** ack_wait of subscription consumers: longer than one attempt's deadline. */
  readonly ackWaitMs: number
  readonly handle: (m: JsMsg) => Promise<void>
}

/**
 * One SubscriptionChannel per subscription that has received events, in every worker (pull consumers share the
 * work). The fan-out creates a subscription's consumer and attaches at once when it first targets it; a sync, which the
 * owning layer runs on its schedule, attaches this process to consumers other workers created, and removes the
 * consumer and queued messages of subscriptions deleted since.
 */
export class SubscriptionChannels {
  private readonly deps: ChannelsDeps
  private readonly channels = new Map<string, SubscriptionChannel>()
  private readonly attaching = new Map<string, Promise<void>>()
  private syncing: Promise<void> | undefined
  private stopped = false

  constructor(deps: ChannelsDeps) {
    this.deps = deps
  }

  get size(): number {
    return this.channels.size
  }

  /** Ensures the subscription's consumer exists and this process consumes it. */
  attach(subscriptionId: string): Promise<void> {
    const current = this.channels.get(subscriptionId)
    if (current && !current.closed) return Promise.resolve()
    const pending = this.attaching.get(subscriptionId)
    if (pending) return pending
    const { jsm, js, namespace, ackWaitMs, handle } = this.deps
    const p = (async () => {
      await ensureSubscriptionConsumer(jsm, namespace, subscriptionId, ackWaitMs)
      if (this.stopped) return
      const channel = new SubscriptionChannel(js, namespace, subscriptionId, handle)
      await channel.start()
      this.channels.set(subscriptionId, channel)
    })().finally(() => this.attaching.delete(subscriptionId))
    this.attaching.set(subscriptionId, p)
    return p
  }

  /** Rejects when the sync fails (the schedule's next run tries again); `stop` waits for one in flight. */
  sync(): Promise<void> {
    this.syncing ??= this.syncOnce().finally(() => (this.syncing = undefined))
    return this.syncing
  }

  private async syncOnce(): Promise<void> {
    const { sql, jsm, namespace } = this.deps
    // A subscription gets its consumer from the fan-out, with its first event; the consumers that exist are the
    // channels to run. PostgreSQL then says which of them belong to deleted subscriptions.
    const consumerIds: Array<string> = []
    for await (const c of jsm.consumers.list(webhookStream(namespace))) {
      const id = subscriptionIdOf(namespace, c.name)
      if (id) consumerIds.push(id)
    }
    // Channels of this process whose consumer another worker removed are looked at too, so they get stopped.
    const ids = [...new Set([...consumerIds, ...this.channels.keys()])]
    if (ids.length === 0) return
    const rows = await sql`SELECT id FROM webhook_subscriptions WHERE id = ANY(${ids}::uuid[])`
    const live = new Set(rows.map((r) => r.id as string))
    for (const id of ids) {
      if (this.stopped) return
      if (live.has(id)) {
        await this.attach(id)
        continue
      }
      await this.channels.get(id)?.stop()
      this.channels.delete(id)
      await removeSubscriptionConsumer(jsm, namespace, id)
      log("info", "webhook channel removed", { subscription_id: id })
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.syncing?.catch(() => undefined)
    await Promise.allSettled([...this.attaching.values()])
    await Promise.all([...this.channels.values()].map((c) => c.stop()))
    this.channels.clear()
  }
}
