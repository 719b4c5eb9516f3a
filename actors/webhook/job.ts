import type { JetStreamClient } from "@nats-io/jetstream"
import type { Sql } from "../../core/db/Database.ts"
import type { DeliveryJobSchema } from "../../streams/topics.ts"
import type { WebhookCommand } from "./protocol.ts"

/** One event for one subscription, on the subscription's own delivery subject: streams/topics.ts. */
export type DeliveryJob = typeof DeliveryJobSchema.Type

/**
 * The envelope: `{ event_id, event_type, sequence, timestamp, data }`; `timestamp` is when the event happened, not
 * the attempt. A command written before sequences existed has none: 0, below any assigned one.
 */
export const webhookBody = (eventId: string, command: WebhookCommand): string =>
  JSON.stringify({ event_id: eventId, event_type: command.event_type, sequence: command.sequence ?? 0, timestamp: command.occurred_at, data: command.data })

/** What publishing delivery jobs needs: the fan-out's and the resends' and replays'. */
export interface FanOutDeps {
  readonly sql: Sql
  readonly js: JetStreamClient
  readonly namespace: string
  /** Called before publishing to a subscription, so this process consumes its subject without waiting for a sync. */
  readonly attach: (subscriptionId: string) => Promise<void>
}
