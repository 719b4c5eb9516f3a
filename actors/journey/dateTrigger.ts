import { deterministicId } from "../../core/deterministicId.ts"
import type { Tx } from "../../core/db/Database.ts"
import { parseDuration } from "../../core/journey/duration.ts"
import type { JourneyTrigger } from "../../schemas/journey.ts"
import { told } from "../../streams/tell.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import { toldRow } from "../runtime/OutboxRelay.ts"
import { type DateScanPart, scanReservationDates } from "../shared/ReservationDateScan.ts"
import { JourneyProtocol, type JourneySignal } from "./protocol.ts"
import type { SweepDeps } from "./timerSweep.ts"

/** How long after its moment a reservation that existed then still fires (a scan missed while workers were down). */
const ON_TIME_GRACE = "24 hours"
/** How long after its moment a reservation made later still fires with `late: send`. */
const LATE_WINDOW = "7 days"

interface DateJourney {
  readonly id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly hotel_ids: ReadonlyArray<string>
  readonly trigger: Extract<JourneyTrigger, { type: "reservation_date" }>
}

interface Fire {
  readonly reservation_id: string
  readonly hotel_id: string
  readonly fire_at: Date
  readonly late: boolean
  readonly status: string
  readonly check_in: string
  readonly check_out: string
  readonly contact_id: string | null
}

/**
 * The reservations one date journey fires for at `now`: the anchor date plus the offset, at the local time in the
 * hotel's timezone, has come. A reservation that existed at that moment fires within a day of it; one made after it
 * (`late`) fires only with `late: send`, within a week. Cancelled and no-show reservations never fire, nor
 * do those another deployment sharing the database last wrote (its own scan fires them, into its own streams). The key
 * (journey, reservation) is unique: a rerun, or two workers, fire nothing twice.
 */
const insertFires = (tx: Tx, j: DateJourney, now: Date, namespace: string) => {
  const days = parseDuration(j.trigger.offset)!.days
  const anchor = j.trigger.anchor === "check_in" ? tx`r.check_in` : tx`r.check_out`
  const lateSend = j.trigger.late === "send"
  return tx<Array<Fire>>`
    WITH candidates AS (
      SELECT r.id, r.hotel_id, r.created_at, r.status, r.check_in, r.check_out,
        ((${anchor} + ${days}::int) + ${j.trigger.local_time}::time) AT TIME ZONE h.timezone AS fire_at
      FROM reservations r JOIN hotels h ON h.id = r.hotel_id
      WHERE r.tenant_id = ${j.tenant_id} AND r.sandbox = ${j.sandbox} AND r.status NOT IN ('cancelled', 'no_show')
        AND (r.namespace IS NULL OR r.namespace = ${namespace})
        AND (${j.hotel_ids.length === 0} OR r.hotel_id = ANY(${j.hotel_ids as Array<string>}::uuid[]))
        AND ${anchor} BETWEEN (${now}::date - ${days}::int - 9) AND (${now}::date - ${days}::int + 2)
    ), due AS (
      SELECT *, created_at > fire_at AS late FROM candidates
      WHERE fire_at <= ${now}
        AND ((created_at <= fire_at AND fire_at > ${now}::timestamptz - ${ON_TIME_GRACE}::interval)
          OR (${lateSend} AND created_at > fire_at AND fire_at > ${now}::timestamptz - ${LATE_WINDOW}::interval))
    ), fired AS (
      INSERT INTO journey_date_fires (journey_id, reservation_id, tenant_id, sandbox, fire_at, late)
      SELECT ${j.id}, id, ${j.tenant_id}, ${j.sandbox}, fire_at, late FROM due
      ON CONFLICT DO NOTHING
      RETURNING reservation_id)
    SELECT d.id AS reservation_id, d.hotel_id, d.fire_at, d.late, d.status,
      to_char(d.check_in, 'YYYY-MM-DD') AS check_in, to_char(d.check_out, 'YYYY-MM-DD') AS check_out, h.contact_id
    FROM due d JOIN fired f ON f.reservation_id = d.id
    LEFT JOIN LATERAL (
      SELECT g.contact_id FROM reservation_guests g
      WHERE g.reservation_id = d.id AND g.contact_id IS NOT NULL ORDER BY g.is_holder DESC, g.position LIMIT 1) h ON true`
}

const signalOf = (j: DateJourney, f: Fire & { contact_id: string }): JourneySignal => ({
  contact_id: f.contact_id,
  event_id: deterministicId(`journey-date:${j.id}:${f.reservation_id}`),
  event_name: `reservation.${j.trigger.anchor}`,
  occurred_at: f.fire_at.toISOString(),
  payload: { reservation_id: f.reservation_id, hotel_id: f.hotel_id, status: f.status, check_in: f.check_in, check_out: f.check_out },
  origin: "date",
  source: null,
  hotel_id: f.hotel_id,
  reservation_id: f.reservation_id,
  starts: true,
  journey_id: j.id,
  late: f.late
})

/**
 * The journey part of the reservation date scan (actors/shared/ReservationDateScan.ts): each active `reservation_date`
 * journey's due reservations become one signal each for the holder's journey actor, in the transaction that records
 * the fire (a reservation without a contact records its fire and sends none).
 */
export const journeyDateSignals: DateScanPart<Pick<SweepDeps, "namespace" | "partitions">> = async (tx, now, deps) => {
  const journeys = await tx<Array<DateJourney>>`
    SELECT j.id, j.tenant_id, j.sandbox, j.hotel_ids, v.definition->'trigger' AS trigger
    FROM journey_definitions j JOIN journey_versions v ON v.journey_id = j.id AND v.version = j.version
    WHERE j.status = 'active' AND j.trigger_type = 'reservation_date'`
  const out: Array<OutboxMessage & { tenant_id: string }> = []
  for (const j of journeys) {
    for (const f of await insertFires(tx, j, now, deps.namespace)) {
      if (f.contact_id === null) continue
      const s = signalOf(j, { ...f, contact_id: f.contact_id })
      out.push(toldRow(told(deps, JourneyProtocol, "signal", j, s, `signal:${s.event_id}:${s.contact_id}`, now.getTime()), j.tenant_id))
    }
  }
  return out
}

/**
 * This part of the scan alone at `now`, under the scan's lock (tests pass the `now` they need): how many signals it
 * sent, none when another worker was scanning.
 */
export const runJourneyDateScan = async (deps: SweepDeps, now: Date): Promise<number> =>
  (await scanReservationDates(deps, now, { signals: journeyDateSignals })).messages.signals.length
