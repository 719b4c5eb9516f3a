import { Schema } from "effect"
import { listOf, ok } from "./list.ts"

// The read side of contacts (issue 24): one profile by id, and the list every search answers in the one list shape.

const Time = Schema.String.annotate({ description: "ISO 8601 date-time, UTC" })
const nullable = <S extends Schema.Top>(s: S) => Schema.NullOr(s)

export const ConsentChannels = ["email", "whatsapp"] as const
export const GuestStages = ["pre-arrival", "in-house", "post-stay", "none"] as const

export const ContactAddress = Schema.Struct({
  street: Schema.optionalKey(Schema.String),
  city: Schema.optionalKey(Schema.String),
  postal_code: Schema.optionalKey(Schema.String),
  province: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  country: Schema.optionalKey(Schema.String.annotate({ description: "ISO 3166-1 alpha-2" }))
})

/** A custom field's value as its definition's type stores it (select and multiselect: the option keys). */
export const CustomFieldValue = Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String), Schema.Null])

/** One consent claim as it arrived, with its evidence. */
export const ConsentEvidence = Schema.Struct({
  channel: Schema.Literals(ConsentChannels),
  granted: Schema.Boolean,
  source: Schema.String.annotate({ description: "who made the claim: api, a feed, website:<source_id>, newsletter:<source>, unsubscribe, ..." }),
  captured_at: nullable(Time).annotate({ description: "when the guest gave or withdrew it, as the source said" }),
  recorded_at: Time,
  text: nullable(Schema.String).annotate({ description: "the consent wording the guest saw, where the source recorded it" }),
  ip: nullable(Schema.String),
  user_agent: nullable(Schema.String)
})

export const ChannelConsent = Schema.Struct({
  granted: nullable(Schema.Boolean).annotate({ description: "marketing consent now; null: never stated" }),
  opted_out_at: nullable(Time).annotate({ description: "a sticky opt-out: no later claim turns marketing consent back on" }),
  suppressed: nullable(Schema.Struct({ reason: Schema.String, since: Time }))
    .annotate({ description: "the address is suppressed (hard bounce, not on WhatsApp): nothing is sent to it at all" })
})

export const ContactHotel = Schema.Struct({
  hotel_id: Schema.String,
  code: Schema.String,
  name: Schema.String,
  first_seen_at: Time,
  last_seen_at: Time
})

export const IdentityConflict = Schema.Struct({
  other_contact_id: Schema.String,
  reason: Schema.String,
  source: Schema.String,
  created_at: Time
})

/** GET /api/v1/contacts/{contact_id}: the whole profile. */
export const ContactProfile = Schema.Struct({
  contact_id: Schema.String,
  phone: nullable(Schema.String).annotate({ description: "E.164" }),
  email: nullable(Schema.String).annotate({ description: "lower-cased" }),
  first_name: nullable(Schema.String),
  last_name: nullable(Schema.String),
  language: Schema.String,
  date_of_birth: nullable(Schema.String),
  gender: nullable(Schema.String),
  nationality: nullable(Schema.String),
  document_type: nullable(Schema.String),
  document_number: nullable(Schema.String),
  address: nullable(ContactAddress),
  source: nullable(Schema.String),
  subscription_status: nullable(Schema.String),
  tags: Schema.Array(Schema.String),
  custom_fields: Schema.Record(Schema.String, CustomFieldValue),
  consent: Schema.Struct({
    email: ChannelConsent,
    whatsapp: ChannelConsent,
    history: Schema.Array(ConsentEvidence).annotate({ description: "newest first, at most 100" })
  }),
  hotels: Schema.Array(ContactHotel),
  guest_stage: Schema.Literals(GuestStages)
    .annotate({ description: "from the contact's reservations: in-house, else an upcoming stay, else a past one, else none" }),
  identity_conflicts: Schema.Array(IdentityConflict)
    .annotate({ description: "a phone and an email of one arrival pointing at two contacts: recorded, never merged silently" }),
  created_at: Time,
  updated_at: Time
})
export type ContactProfile = typeof ContactProfile.Type

export const ContactProfileResponse = ok(ContactProfile)

/** One contact of a list: who it is, enough to choose; the profile route has the rest. */
export const ContactSummary = Schema.Struct({
  contact_id: Schema.String,
  phone: nullable(Schema.String),
  email: nullable(Schema.String),
  first_name: nullable(Schema.String),
  last_name: nullable(Schema.String),
  language: Schema.String,
  tags: Schema.Array(Schema.String),
  created_at: Time,
  updated_at: Time
})
export type ContactSummary = typeof ContactSummary.Type

export const ContactListResponse = listOf("contacts", ContactSummary)
