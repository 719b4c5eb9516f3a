/** A webhook command as the actors write it to the outbox (`<ns>.cmd.webhook.<event_type>`). */
export interface WebhookCommand {
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly occurred_at: string
  readonly event_type: string
  readonly data: unknown
  /** Per tenant, mode and object key, set in the transaction that wrote the command (core/webhook/sequence.ts). */
  readonly sequence?: number
  /** Only this subscription gets it, whatever its event types (`webhook.test`). */
  readonly subscription_id?: string
}

/** Why an attempt is made: the event itself, a test event, a resend of one event, or a replay of a window. */
export type DeliveryTrigger = "event" | "test" | "resend" | "replay"

/** Events emitted to a subscription sent again (`<ns>.cmd.webhook.redeliver`): one (resend) or a window (replay). */
export interface RedeliverCommand {
  readonly kind: "redeliver"
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly subscription_id: string
  readonly trigger: "resend" | "replay"
  /** The resend's or the replay's id: its attempts are counted apart from the event's own. */
  readonly run_id: string
  readonly event_id?: string
  readonly window?: { readonly since: string; readonly until: string; readonly event_types: ReadonlyArray<string> | null }
}

export const isRedeliver = (c: WebhookCommand | RedeliverCommand): c is RedeliverCommand => (c as RedeliverCommand).kind === "redeliver"

/** One event for one subscription, on the subscription's own delivery subject. */
export interface DeliveryJob {
  /** Stable across attempts (the outbox row id): sent as X-Webhook-Event-Id so receivers can deduplicate retries. */
  readonly event_id: string
  readonly subscription_id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly event_type: string
  /** The body, serialised once at fan-out: every attempt, resend and replay sends (and signs) the same bytes. */
  readonly body: string
  readonly trigger?: DeliveryTrigger
  readonly run_id?: string
}

/**
 * The envelope: `{ event_id, event_type, sequence, timestamp, data }`; `timestamp` is when the event happened, not
 * the attempt. A command written before sequences existed has none: 0, below any assigned one.
 */
export const webhookBody = (eventId: string, command: WebhookCommand): string =>
  JSON.stringify({ event_id: eventId, event_type: command.event_type, sequence: command.sequence ?? 0, timestamp: command.occurred_at, data: command.data })
