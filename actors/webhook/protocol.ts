// The webhook commands on the outbox (`<ns>.cmd.webhook.*`), the contract between their writers (the actors, the
// sweeps, the ingress's test, resend and replay routes) and the webhook fan-out.

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
