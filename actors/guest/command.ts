import type { Warning } from "../../schemas/common.ts"

/** A postal address; absent parts say nothing. */
export type AddressFields = Partial<Record<"street" | "city" | "postal_code" | "province" | "state" | "country", string>>

/** What a source says about a person. Absent fields say nothing; identity is normalised (E.164, lower-case). */
export interface ProfileInput {
  readonly phone?: string | undefined
  readonly email?: string | undefined
  readonly first_name?: string | undefined
  readonly last_name?: string | undefined
  readonly language?: string | undefined
  readonly date_of_birth?: string | undefined
  readonly gender?: string | undefined
  readonly nationality?: string | undefined
  readonly document_type?: string | undefined
  readonly document_number?: string | undefined
  readonly address?: AddressFields | undefined
  readonly email_consent?: boolean | undefined
  readonly whatsapp_marketing_consent?: boolean | undefined
  readonly subscription_status?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly custom_fields?: Record<string, unknown> | undefined
}

/** The payload of a `guest.upsert` envelope (guests API), keyed by the contact's identity (E.164 phone). */
export interface UpsertContact {
  readonly profile: ProfileInput & { readonly phone: string }
  readonly hotel_id?: string | undefined
  readonly update_if_exists: boolean
  readonly fill_only: ReadonlyArray<"date_of_birth" | "address">
  readonly source: string
  /** Evidence kept with consent claims. */
  readonly consent_source?: string | undefined
  readonly consent_timestamp?: string | undefined
  readonly warnings: ReadonlyArray<Warning>
}

export interface UpsertContactReply {
  readonly contact_id: string
  readonly is_new: boolean
  readonly changed: boolean
  readonly conflict_with: string | null
}
