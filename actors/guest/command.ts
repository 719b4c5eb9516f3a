import type { Warning } from "../../schemas/common.ts"
import type { ProfileInput } from "../contact/identity.ts"

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
