import type { Extra, ReservationStatus, Stay } from "../../schemas/reservation.ts"
import type { Warning } from "../../schemas/common.ts"
import type { ProfileInput } from "../guest/command.ts"

/**
 * A guest after ingress normalisation (phone in E.164, email lower-cased, or absent when unusable): the profile the
 * identity resolver reads, plus what only the reservation keeps.
 */
export interface GuestInput extends ProfileInput {
  readonly first_name: string
  readonly is_holder: boolean
  readonly pax_type?: string | undefined
  readonly pre_checkin_completed_at?: string | null | undefined
  readonly pre_checkin_source?: string | undefined
  readonly relationship_to_holder?: string | undefined
}

/** Reservation columns a request can set. Absent = left as stored; null = cleared. */
export interface ReservationFields {
  readonly confirmation_number?: string | null
  readonly booking_id?: string | null
  readonly check_in: string
  readonly check_out: string
  readonly booking_date?: string | null
  readonly status?: ReservationStatus
  readonly channel?: string | null
  readonly source?: string
  readonly company?: string | null
  readonly amount?: number | null
  readonly amount_net?: number | null
  readonly currency?: string | null
  readonly market_segment?: string | null
  readonly agency?: string | null
  readonly agency_code?: string | null
  readonly external_created_at?: string | null
  readonly external_updated_at?: string | null
  readonly comments?: string | null
  readonly metadata?: Record<string, unknown> | null
  /** Guests API bookings: the raw PMS channel code and what the tenant's mapping resolved it to. */
  readonly booking_channel_code?: string | null
  readonly channel_type?: string | null
  readonly room_type?: string | null
  readonly room_number?: string | null
  readonly rate_plan?: string | null
}

/** The payload of a `reservation.upsert` envelope, keyed by the partner reservation id. */
export interface UpsertReservation {
  readonly external_id: string
  readonly hotel_id: string
  readonly fields: ReservationFields
  readonly guests: ReadonlyArray<GuestInput>
  readonly stays?: ReadonlyArray<Stay> | undefined
  readonly extras?: ReadonlyArray<Extra> | undefined
  readonly warnings: ReadonlyArray<Warning>
  /** false: store the reservation without a booking event (guests API `trigger_event: false`). Default true. */
  readonly emit_event?: boolean | undefined
}
