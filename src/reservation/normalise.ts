import type { Warning } from "../../schemas/common.ts"
import { type ReservationGuest, ReservationRequest } from "../../schemas/reservation.ts"
import { type GuestInput, ReservationFields, type UpsertReservation } from "../../actors/reservation/protocol.ts"
import { normaliseAddress, normaliseCountry, normaliseEmail, normalisePhone } from "../../core/normalise/index.ts"

const LANGUAGE = /^[a-z]{2,3}([-_][a-z0-9]{2,8})?$/i

/** Keys present in the request, with undefined for absent ones (so "absent" and "null" stay distinct). */
const present = <T extends object, K extends keyof T>(obj: T, keys: ReadonlyArray<K>): Partial<Pick<T, K>> =>
  Object.fromEntries(keys.filter((k) => k in obj && obj[k] !== undefined).map((k) => [k, obj[k]])) as Partial<Pick<T, K>>

const normaliseGuest = (g: ReservationGuest, at: string, warnings: Array<Warning>): GuestInput => {
  const warn = (field: string, code: string, message: string) => warnings.push({ field: `${at}.${field}`, code, message })

  let phone: string | undefined
  if (g.phone != null && g.phone.trim() !== "") {
    const r = normalisePhone(g.phone)
    if (r.ok) phone = r.e164
    else if (r.reason === "placeholder") warn("phone", "not_a_person", "placeholder phone number ignored; it identifies no guest")
    else warn("phone", "invalid_phone", "not a valid international phone number (E.164 with country code); ignored")
  }
  let email: string | undefined
  if (g.email != null && g.email.trim() !== "") {
    const r = normaliseEmail(g.email)
    if (r.ok) email = r.email
    else if (r.reason === "placeholder") warn("email", "not_a_person", `placeholder or ${r.kind} address ignored; it identifies no guest`)
    else warn("email", "invalid_email", "not a valid email address; ignored")
  }
  let nationality: string | undefined
  if (g.nationality != null && g.nationality.trim() !== "") {
    nationality = normaliseCountry(g.nationality)
    if (!nationality) warn("nationality", "dropped", "not an ISO 3166-1 country code; dropped")
  }
  let language: string | undefined
  if (g.language != null && g.language.trim() !== "") {
    if (LANGUAGE.test(g.language.trim())) language = g.language.trim().toLowerCase().replace("_", "-")
    else warn("language", "dropped", "not a language code such as en or pt-BR; dropped")
  }
  let address: GuestInput["address"]
  if (g.address !== undefined && g.address !== null) {
    const r = normaliseAddress(g.address)
    address = r.address
    for (const w of r.warnings) warnings.push({ field: `${at}.${w.field}`, code: w.code, message: w.message })
  }
  const legacyConsent = g.opt_in_status === "opted_in" ? true : g.opt_in_status === "opted_out" ? false : undefined

  return {
    first_name: g.first_name.trim(),
    last_name: g.last_name?.trim() || undefined,
    email,
    phone,
    is_holder: g.is_holder ?? false,
    pax_type: g.pax_type ?? undefined,
    date_of_birth: g.date_of_birth ?? undefined,
    gender: g.gender ?? undefined,
    nationality,
    document_type: g.document_type ?? undefined,
    document_number: g.document_number ?? undefined,
    address,
    language,
    email_consent: g.email_consent ?? undefined,
    whatsapp_marketing_consent: g.whatsapp_marketing_consent ?? legacyConsent,
    pre_checkin_completed_at: g.pre_checkin_completed_at,
    pre_checkin_source: g.pre_checkin_source ?? undefined
  }
}

/** The reservation columns this API sets as sent (the actor's fields that the public request also has). */
const FIELD_KEYS = Object.keys(ReservationFields.fields).filter(
  (k) => k in ReservationRequest.fields && k !== "check_in" && k !== "check_out"
) as ReadonlyArray<keyof ReservationFields & keyof ReservationRequest>

/**
 * Turns a validated request into the actor command: phones to E.164, emails lower-cased, countries to alpha-2,
 * unusable values dropped with a warning (a PMS feed is never refused for one bad guest detail).
 */
export const toUpsertCommand = (r: ReservationRequest, hotelId: string): UpsertReservation => {
  const warnings: Array<Warning> = []
  const guests = r.guests.map((g, i) => normaliseGuest(g, `guests[${i}]`, warnings))
  if (r.nights != null) {
    warnings.push({ field: "nights", code: "ignored", message: "nights is computed from check_in and check_out" })
  }
  const fields: ReservationFields = {
    ...present(r, FIELD_KEYS),
    ...(r.currency ? { currency: r.currency.toUpperCase() } : {}),
    check_in: r.check_in,
    check_out: r.check_out
  } as ReservationFields
  return { external_id: r.reservation_id, hotel_id: hotelId, fields, guests, stays: r.stays,
    extras: r.extras?.map((e) => ({ ...e, quantity: e.quantity ?? 1 })), warnings }
}
