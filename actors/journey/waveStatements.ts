import { PREPARED, withRecords } from "../../core/db/Database.ts"
import { groupBatched } from "../runtime/groupBatch.ts"
import type { ContactFacts, HotelFacts } from "./facts.ts"
import {
  channelFacts, PINNED, type PinnedRow, type ReservationRow, RESERVATION_FACTS, saveRuns, saveSteps, toPinned, toReservation
} from "./repository.ts"
import { isLive, type Run } from "./run.ts"
import type { Move } from "./state.ts"
import type { CandidateJourney } from "./triggers.ts"

// The journey actor's statements, each one multi-row statement for all the signals and wakes of a wave that ask it in
// the same turn (runtime/groupBatch.ts, ADR 0034): a wave of n envelopes makes each step's statement once instead of n
// times. Each answers one value per input, in order; fixed texts, prepared, the tenant filtered explicitly. Rows come
// back with ids in PostgreSQL's form (lower case): inputs are looked up lower-cased, as `WHERE id = $1` matched them.

const distinct = <A>(xs: ReadonlyArray<A>) => [...new Set(xs)]

/** Each contact's live runs, each with its pinned version. */
export const liveRunsOf = groupBatched("JourneyWave.liveRuns", async (tx, scope, contactIds: ReadonlyArray<string>) => {
  const rows = await tx.unsafe<Array<PinnedRow>>(`${PINNED} AND r.contact_id = ANY($3::uuid[]) AND r.state IN ('active', 'waiting')`,
    [scope.tenant_id, scope.sandbox, distinct(contactIds) as never], PREPARED)
  const by = Map.groupBy(rows, (r) => r.contact_id)
  return contactIds.map((id) => (by.get(id.toLowerCase()) ?? []).map(toPinned))
})

/** Runs by id, each with its pinned version (undefined for an id with no run). */
export const runsById = groupBatched("JourneyWave.runsById", async (tx, scope, runIds: ReadonlyArray<string>) => {
  const rows = await tx.unsafe<Array<PinnedRow>>(`${PINNED} AND r.id = ANY($3::uuid[])`, [scope.tenant_id, scope.sandbox, distinct(runIds) as never], PREPARED)
  const by = new Map(rows.map((r) => [r.id, r] as const))
  return runIds.map((id) => {
    const row = by.get(id.toLowerCase())
    return row === undefined ? undefined : toPinned(row)
  })
})

/** Each contact's facts for steps and stop rules (undefined for a contact that no longer exists). */
export const contactFactsOf = groupBatched("JourneyWave.contactFacts", async (tx, scope, contactIds: ReadonlyArray<string>) => {
  const rows = await tx.unsafe<Array<ContactFacts & { id: string }>>(
    `SELECT id, first_name, last_name, email, phone, language, email_consent, whatsapp_marketing_consent FROM contacts
     WHERE id = ANY($3::uuid[]) AND tenant_id = $1 AND sandbox = $2`,
    [scope.tenant_id, scope.sandbox, distinct(contactIds) as never], PREPARED
  )
  const by = new Map(rows.map(({ id, ...facts }) => [id, facts] as const))
  return contactIds.map((id) => by.get(id.toLowerCase()))
})

/** The account's channels in this mode, read once for the wave. */
export const channelFactsOnce = groupBatched("JourneyWave.channelFacts", async (tx, scope, asks: ReadonlyArray<void>) => {
  const facts = await channelFacts(tx, scope)
  return asks.map(() => facts)
})

/** Each hotel's facts (null when none is named, or the id is not one of the account's). */
export const hotelFactsOf = groupBatched("JourneyWave.hotelFacts", async (tx, scope, hotelIds: ReadonlyArray<string | null>) => {
  const ids = distinct(hotelIds.filter((id): id is string => id !== null))
  const rows = ids.length === 0 ? [] : await tx.unsafe<Array<HotelFacts>>(
    `SELECT id, name, code, timezone FROM hotels WHERE id = ANY($2::uuid[]) AND tenant_id = $1`, [scope.tenant_id, ids as never], PREPARED)
  const by = new Map(rows.map((r) => [r.id, r] as const))
  return hotelIds.map((id) => (id === null ? null : by.get(id.toLowerCase()) ?? null))
})

/**
 * Each run's reservation: the one it names, or else its contact's current or next stay (the latest when none is to
 * come).
 */
export const reservationFactsOf = groupBatched(
  "JourneyWave.reservationFacts",
  async (tx, scope, asks: ReadonlyArray<{ readonly reservationId: string | null; readonly contactId: string }>) => {
    const named = distinct(asks.flatMap((a) => (a.reservationId === null ? [] : [a.reservationId])))
    const byContact = distinct(asks.flatMap((a) => (a.reservationId === null ? [a.contactId] : [])))
    const [byId, current] = await Promise.all([
      named.length === 0 ? [] : tx.unsafe<Array<ReservationRow>>(
        `SELECT ${RESERVATION_FACTS} FROM reservations r WHERE r.id = ANY($3::uuid[]) AND r.tenant_id = $1 AND r.sandbox = $2`,
        [scope.tenant_id, scope.sandbox, named as never], PREPARED
      ),
      byContact.length === 0 ? [] : tx.unsafe<Array<ReservationRow & { contact_id: string }>>(
        `SELECT c.contact_id, x.* FROM unnest($3::uuid[]) AS c(contact_id)
         CROSS JOIN LATERAL (
           SELECT ${RESERVATION_FACTS}
           FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id
           WHERE g.contact_id = c.contact_id AND r.tenant_id = $1 AND r.sandbox = $2 AND r.status NOT IN ('cancelled', 'no_show')
           ORDER BY (r.check_out >= current_date) DESC, CASE WHEN r.check_out >= current_date THEN r.check_in END ASC, r.check_in DESC
           LIMIT 1) x`,
        [scope.tenant_id, scope.sandbox, byContact as never], PREPARED
      )
    ])
    const ids = new Map(byId.map((r) => [r.id, r] as const))
    const stays = new Map(current.map(({ contact_id, ...r }) => [contact_id, r] as const))
    return asks.map((a) => toReservation(a.reservationId === null ? stays.get(a.contactId.toLowerCase()) : ids.get(a.reservationId.toLowerCase())))
  }
)

export interface CandidateAsk {
  readonly eventName: string
  readonly journeyId: string | undefined
  readonly contactId: string
  readonly runScope: string
}

/**
 * For each signal, the active journeys its event name (or, for a date trigger, its one journey id) may start, at their
 * current version, each with when the contact last entered it in this scope (re-entry counts per scope).
 */
export const candidateJourneysOf = groupBatched("JourneyWave.candidateJourneys", async (tx, scope, asks: ReadonlyArray<CandidateAsk>) => {
  const rows = await withRecords(tx, scope,
    `SELECT a.i, j.id, j.version, j.name, j.hotel_ids, v.definition,
       (SELECT max(r.started_at) FROM journey_runs r
         WHERE r.contact_id = a.contact_id AND r.journey_id = j.id AND r.scope = a.run_scope) AS last_started_at
     FROM jsonb_to_recordset($3::jsonb) AS a(i int, event_name text, journey_id uuid, contact_id uuid, run_scope text)
     JOIN journey_definitions j ON j.tenant_id = $1 AND j.sandbox = $2 AND j.status = 'active'
       AND ((a.journey_id IS NULL AND j.trigger_event_type = a.event_name) OR j.id = a.journey_id)
     JOIN journey_versions v ON v.journey_id = j.id AND v.version = j.version`,
    asks.map((a, i) => ({ i, event_name: a.eventName, journey_id: a.journeyId ?? null, contact_id: a.contactId, run_scope: a.runScope })))
  const by = Map.groupBy(rows as unknown as ReadonlyArray<CandidateJourney & { i: number; name: string; last_started_at: Date | null }>, (r) => r.i)
  return asks.map((_, i) => (by.get(i) ?? []).map(({ i: _i, last_started_at, ...j }) =>
    ({ ...j, last_started_at: last_started_at === null ? undefined : last_started_at.getTime() })))
})

export interface RunsAndMoves {
  readonly runs: ReadonlyArray<Run>
  readonly moves: ReadonlyArray<Move>
  readonly now: Date
  readonly namespace: string
}

/**
 * What the wave's handlers wrote: every run in one statement and every step in another. Ended runs go first, across
 * the wave as within one handler, so a scope an ended run frees can be taken by a new run of the same statement. A
 * wave holds one envelope per contact, so no run appears twice in the statement.
 */
export const saveRunsAndMoves = groupBatched("JourneyWave.save", async (tx, scope, asks: ReadonlyArray<RunsAndMoves>) => {
  const runs = asks.flatMap((a) => a.runs).sort((a, b) => Number(isLive(a)) - Number(isLive(b)))
  await Promise.all([saveRuns(tx, scope, runs, asks[0]!.now, asks[0]!.namespace), saveSteps(tx, scope, asks.flatMap((a) => a.moves))])
  return asks.map(() => undefined)
})
