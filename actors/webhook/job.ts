/** A webhook command as the actors write it to the outbox (`<ns>.cmd.webhook.<event_type>`). */
export interface WebhookCommand {
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly occurred_at: string
  readonly event_type: string
  readonly data: unknown
}

/** One event for one subscription, on the subscription's own delivery subject. */
export interface DeliveryJob {
  /** Stable across attempts (the outbox row id): sent as X-Webhook-Event-Id so receivers can deduplicate retries. */
  readonly event_id: string
  readonly subscription_id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly event_type: string
  /** The body, serialised once at fan-out: every attempt sends (and signs) the same bytes. */
  readonly body: string
}

/** The spec's envelope: `{ event_type, timestamp, data }`; `timestamp` is when the event happened, not the attempt. */
export const webhookBody = (command: WebhookCommand): string =>
  JSON.stringify({ event_type: command.event_type, timestamp: command.occurred_at, data: command.data })
