import { Schema } from "effect"
import { Attribution } from "./b2b.ts"
import { RunStates } from "./journey.ts"
import { webhookEnvelope } from "./webhookEnvelope.ts"

// The `data` of the contact, journey and reservation webhooks (the spec shows none of them but the date events'
// `scheduled_for`): what the actors write, documented in /openapi.json under `webhooks` and checked when written.

const Time = Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
const Day = Schema.String.annotate({ format: "date" })

export const ContactEventData = Schema.Struct({
  contact: Schema.Struct({
    id: Schema.String,
    phone: Schema.NullOr(Schema.String),
    email: Schema.NullOr(Schema.String),
    first_name: Schema.NullOr(Schema.String),
    last_name: Schema.NullOr(Schema.String),
    hotel_id: Schema.NullOr(Schema.String).annotate({ description: "The hotel of the arrival that created or changed the contact, when it named one" })
  })
})

/**
 * `contact.deleted`: a privacy erasure removed the contact and everything naming it. Only its id, which receivers
 * keyed their copies by, so they can erase theirs; nothing else about the guest is left to send.
 */
export const ContactDeletedData = Schema.Struct({
  contact: Schema.Struct({ id: Schema.String.annotate({ description: "The erased contact's id, as earlier contact events gave it" }) })
})

export const JourneyEventData = Schema.Struct({
  journey: Schema.Struct({ id: Schema.String, name: Schema.String, version: Schema.Int }),
  run: Schema.Struct({
    id: Schema.String,
    state: Schema.Literals(RunStates),
    scope: Schema.String,
    hotel_id: Schema.NullOr(Schema.String),
    reservation_id: Schema.NullOr(Schema.String),
    started_at: Time,
    ended_at: Time,
    exit_reason: Schema.NullOr(Schema.String),
    error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String, step_id: Schema.NullOr(Schema.String) }))
  }),
  outcome: Schema.optionalKey(Schema.Literals(["completed", "stopped"]).annotate({ description: "journey.completed only" })),
  contact: Schema.Struct({ id: Schema.String, email: Schema.NullOr(Schema.String), phone: Schema.NullOr(Schema.String) }),
  trigger: Schema.Struct({
    event: Schema.String,
    event_id: Schema.String,
    origin: Schema.Literals(["core", "website", "booking", "date"]),
    source: Schema.NullOr(Schema.String)
  })
})

export const ReservationDateEventData = Schema.Struct({
  reservation: Schema.Struct({
    id: Schema.String,
    hotel_id: Schema.String,
    status: Schema.String.annotate({ description: "The guests API's form: Confirmed, CheckedIn, CheckedOut, ..." }),
    check_in: Day,
    check_out: Day,
    localizer_code: Schema.NullOr(Schema.String),
    booking_id: Schema.NullOr(Schema.String),
    source: Schema.String,
    booking_channel: Schema.NullOr(Schema.String),
    total_value: Schema.NullOr(Schema.Number),
    currency: Schema.NullOr(Schema.String)
  }),
  contact: Schema.NullOr(Schema.Struct({
    id: Schema.String,
    first_name: Schema.NullOr(Schema.String),
    last_name: Schema.NullOr(Schema.String),
    email: Schema.NullOr(Schema.String),
    phone: Schema.NullOr(Schema.String),
    language: Schema.NullOr(Schema.String),
    nationality: Schema.NullOr(Schema.String)
  })),
  scheduled_for: Schema.Struct({
    date: Day,
    local_time: Schema.String.annotate({ description: "HH:MM in the hotel's time zone" }),
    timezone: Schema.String,
    iso: Schema.String.annotate({ description: "The local time with the zone's offset, e.g. 2026-12-01T15:00:00+01:00" })
  })
})

export const AttributionChangedData = Schema.Struct({
  reservation: Schema.Struct({
    id: Schema.String,
    reservation_id: Schema.String.annotate({ description: "The partner's id of the reservation" }),
    hotel_id: Schema.String,
    status: Schema.String,
    check_in: Day,
    check_out: Day,
    nights: Schema.NullOr(Schema.Number),
    booking_date: Schema.NullOr(Day),
    amount: Schema.NullOr(Schema.Number),
    currency: Schema.NullOr(Schema.String)
  }),
  attribution: Attribution,
  previous: Schema.NullOr(Attribution)
})

/** Event type → the body a subscription receives. */
export const CoreWebhooks: ReadonlyArray<readonly [string, Schema.Top]> = [
  ...["contact.created", "contact.updated"].map((t) => [t, webhookEnvelope(t, ContactEventData)] as const),
  ["contact.deleted", webhookEnvelope("contact.deleted", ContactDeletedData)],
  ...["journey.started", "journey.completed", "journey.failed"].map((t) => [t, webhookEnvelope(t, JourneyEventData)] as const),
  ...["reservation.checked_in", "reservation.checked_out"].map((t) => [t, webhookEnvelope(t, ReservationDateEventData)] as const),
  ["reservation.attribution_changed", webhookEnvelope("reservation.attribution_changed", AttributionChangedData)]
]

