import { createHash } from "node:crypto"
import type { ReservationStatus } from "../../schemas/reservation.ts"
import { OPTIONAL_FIELDS, type ReservationFields, type UpsertReservation } from "./protocol.ts"

export type GuestStage = "pre-arrival" | "in-house" | "post-stay" | "none"

const STAGES: Record<ReservationStatus, GuestStage> = {
  confirmed: "pre-arrival",
  pending: "pre-arrival",
  modified: "pre-arrival",
  checked_in: "in-house",
  checked_out: "post-stay",
  cancelled: "none",
  no_show: "none"
}

export const guestStageOf = (status: ReservationStatus): GuestStage => STAGES[status]

/** Nights are computed from the dates; a `nights` value in the request is accepted and ignored. */
export const nightsBetween = (checkIn: string, checkOut: string): number =>
  Math.round((Date.parse(`${checkOut}T00:00:00Z`) - Date.parse(`${checkIn}T00:00:00Z`)) / 86_400_000)

export type BookingEventType = "booking.created" | "booking.updated" | "booking.cancelled"

/** Entering `cancelled` (also a first arrival already cancelled) is a cancellation; otherwise created or updated. */
export const bookingEventFor = (previous: ReservationStatus | undefined, next: ReservationStatus): BookingEventType =>
  next === "cancelled" && previous !== "cancelled"
    ? "booking.cancelled"
    : previous === undefined ? "booking.created" : "booking.updated"

/**
 * The stay event a status change means, beside its booking event: a reservation moving into checked-in or
 * checked-out is the guest arriving or leaving, which journeys listen to as `guest.checked_in` / `guest.checked_out`
 * whether a PMS reports it by the reservation's status or a partner sends the event.
 */
export const guestEventFor = (previous: ReservationStatus | undefined, next: ReservationStatus): "guest.checked_in" | "guest.checked_out" | undefined =>
  next === previous ? undefined : next === "checked_in" ? "guest.checked_in" : next === "checked_out" ? "guest.checked_out" : undefined

/** The stored reservation columns the actor owns. */
export interface ReservationRow extends Required<Omit<ReservationFields, "status" | "source">> {
  readonly id: string
  readonly hotel_id: string
  readonly status: ReservationStatus
  readonly source: string
  readonly guest_stage: GuestStage
  readonly nights: number
  readonly stays: ReadonlyArray<unknown>
  readonly extras: ReadonlyArray<unknown>
  readonly version: number
  /** The digest of the body last applied (null for reservations stored before digests were kept). */
  readonly body_hash: string | null
}

/**
 * The reservation after applying a command: fields sent replace stored ones (null clears), fields not sent stay;
 * stays and extras are replaced when sent. A new reservation defaults to `confirmed` and source `api`.
 */
export const mergeReservation = (existing: ReservationRow | undefined, id: string, cmd: UpsertReservation): ReservationRow => {
  const f = cmd.fields
  const status = f.status ?? existing?.status ?? "confirmed"
  const optional = Object.fromEntries(OPTIONAL_FIELDS.map((k) => [k, f[k] !== undefined ? f[k] : existing?.[k] ?? null]))
  return {
    ...(optional as Pick<ReservationRow, typeof OPTIONAL_FIELDS[number]>),
    id: existing?.id ?? id,
    hotel_id: cmd.hotel_id,
    check_in: f.check_in,
    check_out: f.check_out,
    status,
    source: f.source ?? existing?.source ?? "api",
    guest_stage: guestStageOf(status),
    nights: nightsBetween(f.check_in, f.check_out),
    stays: cmd.stays ?? existing?.stays ?? [],
    extras: cmd.extras ?? existing?.extras ?? [],
    version: (existing?.version ?? 0) + 1,
    body_hash: bodyHashOf(cmd)
  }
}

/**
 * A digest of what an upsert says (hotel, fields, guests, stays, extras; not its warnings): the same body resent
 * digests the same, and a resend that changes nothing emits no booking event and so starts no journey.
 */
export const bodyHashOf = (cmd: UpsertReservation): string =>
  createHash("sha256").update(JSON.stringify([cmd.hotel_id, cmd.fields, cmd.guests, cmd.stays ?? null, cmd.extras ?? null])).digest("base64url")

/** Whether an upsert is a resend of the body last applied. */
export const isUnchangedResend = (existing: ReservationRow | undefined, next: ReservationRow): boolean =>
  existing !== undefined && existing.body_hash === next.body_hash
