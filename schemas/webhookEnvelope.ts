import { Schema } from "effect"

/**
 * The body every subscription receives (signed as the README describes), whatever the event: `event_id` names the
 * event (the same on every attempt, resend and replay; also X-Webhook-Event-Id), `sequence` increases per object
 * (the contact of contact.*, the reservation of reservation.*, the message, the journey run, the loyalty member ...),
 * so a receiver keeps the highest seen per object and drops an older update arriving late.
 */
export const webhookEnvelope = <S extends Schema.Top>(eventType: string, data: S) =>
  Schema.Struct({
    event_id: Schema.String.annotate({ description: "The event's id, stable across retries, resends and replays: deduplicate on it" }),
    event_type: Schema.Literal(eventType),
    sequence: Schema.Int.annotate({
      description: "Increases per object the event is about (not contiguous): drop an update whose sequence is below the last one seen for that object"
    }),
    timestamp: Schema.String.annotate({ format: "date-time", description: "When the event happened (not the attempt)" }),
    data
  })
