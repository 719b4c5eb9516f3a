import type { UpsertContact } from "../../actors/guest/protocol.ts"
import type { GuestInput, UpsertReservation } from "../../actors/reservation/protocol.ts"
import type { Warning } from "../../schemas/common.ts"
import type { Booking, GuestRequest } from "../../schemas/guest.ts"
import type { ReservationStatus } from "../../schemas/reservation.ts"
import { normaliseAddress, normaliseCountry, normaliseEmail, normalisePhone } from "../../core/normalise/index.ts"

export type GuestCheck =
  | { readonly ok: true; readonly command: UpsertContact }
  | { readonly ok: false; readonly status: 400 | 422; readonly code: string; readonly message: string; readonly details: Record<string, Array<string>> }

const LANGUAGE = /^[a-z]{2,3}([-_][a-z0-9]{2,8})?$/i
const STATUS: Record<Booking["status"] & string, ReservationStatus> = {
  Confirmed: "confirmed", Modified: "modified", CheckedIn: "checked_in", CheckedOut: "checked_out", Cancelled: "cancelled", NoShow: "no_show"
}

/**
 * Consent for WhatsApp marketing, most explicit first: the field itself, then the legacy
 * `communication_preferences.marketing`, then the legacy `opt_in_status`.
 */
const whatsappConsent = (r: GuestRequest): boolean | undefined =>
  r.whatsapp_marketing_consent ?? r.communication_preferences?.marketing ??
    (r.opt_in_status === "opted_in" ? true : r.opt_in_status === "opted_out" ? false : undefined)

/** Validates identity (the phone is the key of the guests API) and turns the request into the contact command. */
export const toUpsertContact = (r: GuestRequest, hotelId: string | undefined, customFields: Record<string, unknown> | undefined): GuestCheck => {
  const phone = normalisePhone(r.phone)
  if (!phone.ok) {
    return phone.reason === "placeholder"
      ? { ok: false, status: 422, code: "NOT_A_PERSON", message: "The phone is a placeholder and identifies no guest", details: { phone: ["is a placeholder number, not a guest's"] } }
      : { ok: false, status: 400, code: "VALIDATION_ERROR", message: "Invalid request: phone is not a valid international number", details: { phone: ["must be a valid phone number with its country code, e.g. +34600111222"] } }
  }
  const warnings: Array<Warning> = []
  let email: string | undefined
  if (r.email != null && r.email.trim() !== "") {
    const e = normaliseEmail(r.email)
    if (e.ok) email = e.email
    else if (e.reason === "placeholder") warnings.push({ field: "email", code: "not_a_person", message: `placeholder or ${e.kind} address ignored` })
    else return { ok: false, status: 400, code: "VALIDATION_ERROR", message: "Invalid request: email is not a valid address", details: { email: ["must be a valid email address"] } }
  }
  let nationality: string | undefined
  if (r.nationality != null && r.nationality.trim() !== "") {
    nationality = normaliseCountry(r.nationality)
    if (!nationality) warnings.push({ field: "nationality", code: "dropped", message: "not an ISO 3166-1 country code; dropped" })
  }
  let language: string | undefined
  if (r.language != null && r.language.trim() !== "") {
    if (LANGUAGE.test(r.language.trim())) language = r.language.trim().toLowerCase().replace("_", "-")
    else warnings.push({ field: "language", code: "dropped", message: "not a language code such as en or pt-BR; dropped" })
  }
  const address = r.address === undefined || r.address === null ? undefined : normaliseAddress(r.address)
  for (const w of address?.warnings ?? []) warnings.push({ field: w.field, code: w.code, message: w.message })
  return {
    ok: true,
    command: {
      profile: {
        phone: phone.e164,
        email,
        first_name: r.first_name.trim(),
        last_name: r.last_name.trim(),
        language,
        date_of_birth: r.date_of_birth ?? undefined,
        gender: r.gender ?? undefined,
        nationality,
        document_type: r.document_type ?? undefined,
        document_number: r.document_number ?? undefined,
        address: address?.address,
        email_consent: r.email_consent ?? undefined,
        whatsapp_marketing_consent: whatsappConsent(r),
        subscription_status: r.subscription_status,
        tags: r.tags?.map((t) => t.trim()).filter((t) => t.length > 0),
        custom_fields: customFields
      },
      hotel_id: hotelId,
      update_if_exists: r.update_if_exists ?? true,
      fill_only: r.fill_only_fields ?? [],
      source: r.source ?? "api",
      consent_source: r.consent_source ?? undefined,
      consent_timestamp: r.consent_timestamp ?? undefined,
      warnings
    }
  }
}

export interface ChannelResolution {
  readonly name: string
  readonly channel_type: string
}

/** The optional booking as a reservation upsert: the guest first (holder unless a companion is), then companions. */
export const bookingToReservation = (
  r: GuestRequest,
  booking: Booking,
  contact: UpsertContact,
  hotelId: string,
  channel: ChannelResolution | undefined
): UpsertReservation => {
  const warnings: Array<Warning> = []
  const companionHolds = (booking.guests ?? []).some((g) => g.is_holder === true)
  const main: GuestInput = {
    first_name: contact.profile.first_name!,
    last_name: contact.profile.last_name,
    phone: contact.profile.phone,
    email: contact.profile.email,
    is_holder: !companionHolds,
    language: contact.profile.language
  }
  const companions: Array<GuestInput> = (booking.guests ?? []).map((g, i) => {
    let email: string | undefined
    if (g.email != null && g.email.trim() !== "") {
      const e = normaliseEmail(g.email)
      if (e.ok) email = e.email
      else warnings.push({ field: `booking.guests[${i}].email`, code: e.reason === "placeholder" ? "not_a_person" : "invalid_email", message: "unusable email ignored" })
    }
    return {
      first_name: g.first_name.trim(),
      last_name: g.last_name?.trim() || undefined,
      email,
      is_holder: g.is_holder ?? false,
      pax_type: g.pax_type?.toLowerCase(),
      relationship_to_holder: g.relationship_to_holder ?? undefined,
      pre_checkin_completed_at: g.pre_checkin_completed_at,
      pre_checkin_source: g.pre_checkin_source ?? undefined
    }
  })
  const hasRoom = [booking.room_type, booking.room_number, booking.board_type, booking.rate_plan].some((v) => v != null)
  return {
    external_id: booking.reservation_id ?? booking.booking_id,
    hotel_id: hotelId,
    fields: {
      booking_id: booking.booking_id,
      check_in: booking.check_in,
      check_out: booking.check_out,
      ...(booking.status ? { status: STATUS[booking.status] } : {}),
      source: r.source ?? "api",
      amount: booking.total_amount ?? null,
      currency: (booking.currency ?? "EUR").toUpperCase(),
      channel: booking.booking_channel == null ? null : channel?.name ?? booking.booking_channel,
      booking_channel_code: booking.booking_channel ?? null,
      channel_type: channel?.channel_type ?? null,
      room_type: booking.room_type ?? null,
      room_number: booking.room_number ?? null,
      rate_plan: booking.rate_plan ?? null
    },
    guests: [main, ...companions],
    stays: hasRoom
      ? [{ start_date: booking.check_in, end_date: booking.check_out, room_type: booking.room_type ?? null, room_number: booking.room_number ?? null, board_type: booking.board_type ?? null, rate_code: booking.rate_plan ?? null }]
      : undefined,
    extras: booking.extras?.map((e) => ({ name: e.name, amount: e.amount, quantity: e.quantity ?? 1, notes: e.notes ?? null })),
    warnings,
    emit_event: r.trigger_event ?? true
  }
}
