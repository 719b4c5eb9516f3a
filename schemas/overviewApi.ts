import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Unprocessable, ValidationFailed } from "./errors.ts"
import { ok } from "./list.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"

// The overview statistics (issue 27, the console's charts): per UTC day and hotel, what came in and what went out.

const Count = Schema.Int.annotate({ description: "a count, 0 when nothing happened" })

/** A channel's messages created that day, by how far they got (a read message counts as sent, delivered and read). */
export const Outcomes = Schema.Struct({
  sent: Count.annotate({ description: "left through the provider: sent, delivered or read now" }),
  delivered: Count.annotate({ description: "delivered or read now" }),
  read: Count,
  failed: Count,
  skipped: Count.annotate({ description: "not sent: a consent gate, a missing address, a suppression (skip_reason on each)" })
})

export const OverviewDay = Schema.Struct({
  date: Schema.String.annotate({ format: "date", description: "the UTC day" }),
  hotel_id: Schema.NullOr(Schema.String).annotate({
    description: "the hotel; null for what belongs to no hotel (contacts created, webhook attempts, messages and runs without one)"
  }),
  reservations_received: Count.annotate({ description: "reservations first received that day (later updates of one do not count again)" }),
  contacts_created: Count,
  journey_entries: Count.annotate({ description: "journey runs started" }),
  messages: Schema.Struct({ email: Outcomes, whatsapp: Outcomes }).annotate({ description: "outbound messages created that day, by their status now" }),
  webhooks: Schema.Struct({
    succeeded: Count.annotate({ description: "delivery attempts the receiver accepted (2xx)" }),
    failed: Count.annotate({ description: "delivery attempts that failed (an error status, a timeout, 410 gone)" })
  })
})

export type OverviewDay = typeof OverviewDay.Type

export const Overview = Schema.Struct({
  from: Schema.String.annotate({ format: "date" }),
  to: Schema.String.annotate({ format: "date", description: "inclusive" }),
  days: Schema.Array(OverviewDay).annotate({ description: "one entry per day and hotel with anything to count, by date then hotel (null last)" })
})

export const OverviewGroup = HttpApiGroup.make("overview")
  .add(
    HttpApiEndpoint.get("get", "/api/v1/overview", {
      query: {
        from: Schema.optionalKey(SafeString.annotate({ format: "date", description: "first UTC day, YYYY-MM-DD (default 13 days before to)" })),
        to: Schema.optionalKey(SafeString.annotate({ format: "date", description: "last UTC day, inclusive, YYYY-MM-DD (default today)" })),
        hotel_id: Schema.optionalKey(SafeString.annotate({ description: "one hotel's figures only" }))
      },
      success: ok(Overview),
      error: [ValidationFailed, Unprocessable]
    }).annotate(RequiredScope, ["bookings:read", "guests:read"])
      .annotate(OpenApi.Summary, "Per UTC day and hotel: reservations received, contacts created, journey entries, messages by channel and outcome, webhook attempts; at most 92 days (default the last 14)")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
