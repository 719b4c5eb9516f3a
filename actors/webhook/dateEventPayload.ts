/** A key the date scan inserted: one reservation, one event, one local date. */
export interface DateEventKey {
  readonly reservation_id: string
  readonly event_type: "reservation.checked_in" | "reservation.checked_out"
  readonly local_date: string
  /** HH:MM */
  readonly local_time: string
  readonly timezone: string
  readonly scheduled_at: Date
  readonly outbox_id: string
  readonly tenant_id: string
  readonly sandbox: boolean
}

export interface ReservationDetails {
  readonly id: string
  readonly hotel_id: string
  readonly status: string
  readonly check_in: string
  readonly check_out: string
  readonly confirmation_number: string | null
  readonly booking_id: string | null
  readonly source: string
  readonly channel: string | null
  readonly amount: number | null
  readonly currency: string | null
  readonly contact_id: string | null
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly language: string | null
  readonly nationality: string | null
}

/** The guests API's capitalised status forms (the spec's example: `CheckedIn`). */
const STATUS: Record<string, string> = {
  confirmed: "Confirmed", pending: "Pending", modified: "Modified", checked_in: "CheckedIn",
  checked_out: "CheckedOut", cancelled: "Cancelled", no_show: "NoShow"
}

/** `2026-12-01T15:00:00+01:00`: the local wall time with the zone's offset at that instant. */
export const localIso = (date: string, time: string, instant: Date): string => {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number]
  const [h, mi] = time.split(":").map(Number) as [number, number]
  const offsetMinutes = Math.round((Date.UTC(y, mo - 1, d, h, mi) - instant.getTime()) / 60_000)
  const sign = offsetMinutes < 0 ? "-" : "+"
  const abs = Math.abs(offsetMinutes)
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${date}T${time}:00${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** `data` of a reservation date event, with the fields the spec lists under "Outbound webhook delivery". */
export const reservationEventData = (k: DateEventKey, r: ReservationDetails) => ({
  reservation: {
    id: r.id,
    hotel_id: r.hotel_id,
    status: STATUS[r.status] ?? r.status,
    check_in: r.check_in,
    check_out: r.check_out,
    localizer_code: r.confirmation_number,
    booking_id: r.booking_id,
    source: r.source,
    booking_channel: r.channel,
    total_value: r.amount,
    currency: r.currency
  },
  contact: r.contact_id === null ? null : {
    id: r.contact_id,
    first_name: r.first_name,
    last_name: r.last_name,
    email: r.email,
    phone: r.phone,
    language: r.language,
    nationality: r.nationality
  },
  scheduled_for: {
    date: k.local_date,
    local_time: k.local_time,
    timezone: k.timezone,
    iso: localIso(k.local_date, k.local_time, k.scheduled_at)
  }
})
