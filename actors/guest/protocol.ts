import { Schema } from "effect"
import { Warning } from "../../schemas/common.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)

/** A postal address; absent parts say nothing. */
export const AddressFields = Schema.Struct({
  street: opt(Schema.String),
  city: opt(Schema.String),
  postal_code: opt(Schema.String),
  province: opt(Schema.String),
  state: opt(Schema.String),
  country: opt(Schema.String)
})
export type AddressFields = typeof AddressFields.Type

/** What a source says about a person. Absent fields say nothing; identity is normalised (E.164, lower-case). */
export const ProfileFields = {
  phone: opt(Schema.String),
  email: opt(Schema.String),
  first_name: opt(Schema.String),
  last_name: opt(Schema.String),
  language: opt(Schema.String),
  date_of_birth: opt(Schema.String),
  gender: opt(Schema.String),
  nationality: opt(Schema.String),
  document_type: opt(Schema.String),
  document_number: opt(Schema.String),
  address: opt(AddressFields),
  email_consent: opt(Schema.Boolean),
  whatsapp_marketing_consent: opt(Schema.Boolean),
  subscription_status: opt(Schema.String),
  tags: opt(Schema.Array(Schema.String)),
  custom_fields: opt(Schema.Record(Schema.String, Schema.Unknown))
}
export const ProfileInput = Schema.Struct(ProfileFields)
export type ProfileInput = typeof ProfileInput.Type

/** The guests API's contact upsert, keyed by the contact's identity (E.164 phone). */
export const UpsertContact = Schema.Struct({
  profile: Schema.Struct({ ...ProfileFields, phone: Schema.String }),
  hotel_id: opt(Schema.String),
  update_if_exists: Schema.Boolean,
  fill_only: Schema.Array(Schema.Literals(["date_of_birth", "address"])),
  source: Schema.String,
  /** Evidence kept with consent claims. */
  consent_source: opt(Schema.String),
  consent_timestamp: opt(Schema.String),
  warnings: Schema.Array(Warning)
})
export type UpsertContact = typeof UpsertContact.Type

export const UpsertContactResult = Schema.Struct({
  contact_id: Schema.String,
  is_new: Schema.Boolean,
  changed: Schema.Boolean,
  /** Set when the email belongs to another contact than the phone's: recorded, not merged. */
  conflict_with: Schema.NullOr(Schema.String)
})
export type UpsertContactResult = typeof UpsertContactResult.Type

/** The guest actor: one contact's profile, consents and hotel links, keyed by its E.164 phone. */
export const GuestProtocol = ActorProtocol.make("guest", {
  key: (p) => p.profile.phone,
  messages: {
    upsert: ActorProtocol.message({ payload: UpsertContact, success: UpsertContactResult })
  }
})
