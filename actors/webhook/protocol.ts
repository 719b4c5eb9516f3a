import type { DeliveryTriggers, RedeliverCommandSchema, WebhookCommandSchema } from "../../streams/topics.ts"

// The webhook commands on the outbox (`<ns>.cmd.webhook.*`), the contract between their writers (the actors, the
// sweeps, the ingress's test, resend and replay routes) and the webhook fan-out.

/** A webhook command as the actors write it to the outbox (`<ns>.cmd.webhook.<event_type>`): streams/topics.ts. */
export type WebhookCommand = typeof WebhookCommandSchema.Type

/** Why an attempt is made: the event itself, a test event, a resend of one event, or a replay of a window. */
export type DeliveryTrigger = typeof DeliveryTriggers[number]

/** Events emitted to a subscription sent again (`<ns>.cmd.webhook.redeliver`): one (resend) or a window (replay). */
export type RedeliverCommand = typeof RedeliverCommandSchema.Type

export const isRedeliver = (c: WebhookCommand | RedeliverCommand): c is RedeliverCommand => (c as RedeliverCommand).kind === "redeliver"
