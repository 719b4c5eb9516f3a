import { Schema } from "effect"
import { webhookEnvelope } from "./webhookEnvelope.ts"

// The `data` of the broadcast webhooks (issue 25), documented in /openapi.json under `webhooks`. `broadcast.sent`:
// every recipient is terminal (handed over and answered by the sender, or skipped); `broadcast.completed`: the
// statistics settled (every message's status final, or 72 hours after sent).

const Time = Schema.NullOr(Schema.String.annotate({ format: "date-time" }))

export const BroadcastOutcomes = Schema.Struct({
  targeted: Schema.Int,
  sent: Schema.Int,
  delivered: Schema.Int,
  read: Schema.Int,
  failed: Schema.Int,
  skipped: Schema.Int,
  skipped_by_reason: Schema.Record(Schema.String, Schema.Int)
})

export const BroadcastEventData = Schema.Struct({
  broadcast: Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    channel: Schema.Literals(["email", "whatsapp"]),
    category: Schema.Literals(["marketing", "utility"]),
    status: Schema.Literal("sent"),
    started_at: Time,
    sent_at: Time,
    completed_at: Time
  }),
  counts: BroadcastOutcomes
})

export const BroadcastWebhooks: ReadonlyArray<readonly [string, Schema.Top]> =
  ["broadcast.sent", "broadcast.completed"].map((t) => [t, webhookEnvelope(t, BroadcastEventData)] as const)
