import type { AddContact, CreateDeal, DealColumns, UpdateDeal } from "../../actors/b2b/protocol.ts"
import { normaliseEmail, normalisePhone } from "../../core/normalise/index.ts"
import type { AddContactRequest, CreateDealRequest, UpdateDealRequest } from "../../schemas/b2b.ts"
import type { Warning } from "../../schemas/common.ts"
import { deskEmail, type Issues } from "./normalise.ts"

// Contact and deal requests → b2b actor commands.

export type ContactCheck =
  | { readonly ok: true; readonly command: AddContact }
  | { readonly ok: false; readonly status: 400 | 422; readonly code: string; readonly message: string; readonly details: Issues }

/**
 * A person at an account. The phone must be a real number (400 otherwise) and the email a person's: a role or desk
 * mailbox (`reservas@`) is kept among the account's desk emails instead (with a warning), never made a person, and
 * other placeholders are dropped with a warning. Without a phone or a person's email there is no one to link: 422.
 */
export const toAddContact = (r: AddContactRequest, accountId: string): ContactCheck => {
  const warnings: Array<Warning> = []
  let phone: string | undefined
  if (r.phone != null && r.phone.trim() !== "") {
    const p = normalisePhone(r.phone)
    if (!p.ok && p.reason !== "placeholder") {
      return { ok: false, status: 400, code: "VALIDATION_ERROR", message: "Invalid request: phone is not a valid international number", details: { phone: ["must be a valid phone number with its country code"] } }
    }
    if (p.ok) phone = p.e164
    else warnings.push({ field: "phone", code: "not_a_person", message: "placeholder phone number ignored; it identifies no one" })
  }
  let email: string | undefined
  let desk: string | undefined
  if (r.email != null && r.email.trim() !== "") {
    const e = normaliseEmail(r.email)
    if (e.ok) email = e.email
    else if (e.reason === "placeholder" && e.kind === "role" && (desk = deskEmail(r.email)) !== undefined) {
      warnings.push({ field: "email", code: "role_mailbox", message: "a role or desk mailbox is not a person: kept among the account's desk_emails" })
    } else if (e.reason === "placeholder") {
      warnings.push({ field: "email", code: "not_a_person", message: `placeholder or ${e.kind} address ignored; it identifies no one` })
    } else {
      return { ok: false, status: 400, code: "VALIDATION_ERROR", message: "Invalid request: email is not a valid address", details: { email: ["must be a valid email address"] } }
    }
  }
  if (phone === undefined && email === undefined) {
    return {
      ok: false, status: 422, code: "NOT_A_PERSON", message: "No phone or personal email identifies a person",
      details: { email: ["a person needs a phone or a personal email (role and desk mailboxes belong in the account's desk_emails)"] }
    }
  }
  return {
    ok: true,
    command: {
      account_id: accountId,
      profile: { phone, email, first_name: r.first_name.trim(), last_name: r.last_name?.trim() || undefined },
      ...(r.role !== undefined ? { role: r.role } : {}),
      ...(r.title !== undefined ? { title: r.title } : {}),
      ...(r.is_primary !== undefined ? { is_primary: r.is_primary } : {}),
      ...(desk !== undefined ? { desk_email: desk } : {}),
      warnings
    }
  }
}

const rateCodes = (codes: ReadonlyArray<string>) => [...new Set(codes.map((c) => c.trim().replace(/\s+/gu, " ")))]

export const toCreateDeal = (r: CreateDealRequest, dealId: string): CreateDeal => {
  const deal: DealColumns = {
    contact_id: r.contact_id ?? null,
    name: r.name.trim(),
    type: r.type,
    stage: r.stage,
    lost_reason: r.lost_reason ?? null,
    hotel_ids: [...new Set(r.hotel_ids ?? [])],
    arrival: r.arrival ?? null,
    departure: r.departure ?? null,
    room_nights: r.room_nights ?? null,
    value_amount: r.value?.amount ?? null,
    value_currency: r.value?.currency.toUpperCase() ?? null,
    probability: r.probability ?? null,
    expected_close: r.expected_close ?? null,
    rate_codes: rateCodes(r.rate_codes ?? []),
    external_id: r.external_id ?? null,
    owner_user_id: r.owner_user_id ?? null
  }
  return { account_id: r.account_id, deal_id: dealId, deal }
}

/** A merge patch of a deal: fields sent (null clears), the rest kept by the actor. */
export const toUpdateDeal = (r: UpdateDealRequest, accountId: string, dealId: string): UpdateDeal => {
  const set: Record<string, unknown> = {}
  const copy = <K extends keyof UpdateDealRequest & keyof DealColumns>(k: K) => {
    if (r[k] !== undefined) set[k] = r[k]
  }
  for (const k of ["contact_id", "type", "stage", "lost_reason", "arrival", "departure", "room_nights", "probability", "expected_close", "external_id", "owner_user_id"] as const) copy(k)
  if (r.name !== undefined) set.name = r.name.trim()
  if (r.hotel_ids !== undefined) set.hotel_ids = [...new Set(r.hotel_ids ?? [])]
  if (r.rate_codes !== undefined) set.rate_codes = rateCodes(r.rate_codes ?? [])
  if (r.value !== undefined) {
    set.value_amount = r.value?.amount ?? null
    set.value_currency = r.value?.currency.toUpperCase() ?? null
  }
  return { account_id: accountId, deal_id: dealId, set: set as UpdateDeal["set"] }
}
