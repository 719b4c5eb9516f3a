import { readEmailChannel, readWhatsAppSetup } from "../../core/channel/repository.ts"
import { jsonb, PREPARED, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { JourneyDefinition, JourneyStatus } from "../../schemas/journey.ts"
import type { ChannelFacts, ContactFacts, HotelFacts, ReservationFacts } from "./facts.ts"
import type { Run } from "./run.ts"
import type { Move } from "./state.ts"
import type { CandidateJourney } from "./triggers.ts"

// The journey actor's reads and writes: runs with their pinned definitions, the facts steps need, and what a move wrote.

/** A run as its row holds it: the same fields, with timestamps as the driver returns them. */
type RunRow = Omit<Run, "wake_at" | "started_at" | "ended_at"> & {
  readonly wake_at: Date | null
  readonly started_at: Date
  readonly ended_at: Date | null
}

const toRun = (r: RunRow): Run => ({
  ...r,
  wake_at: r.wake_at === null ? null : r.wake_at.getTime(),
  started_at: r.started_at.getTime(),
  ended_at: r.ended_at === null ? null : r.ended_at.getTime()
})

/** A run with the version it is pinned to and its journey's name and status now. */
export interface PinnedRun {
  readonly run: Run
  readonly journey: PinnedJourney
}

/** A pinned version's definition and its journey's name and status now. */
export interface PinnedJourney {
  readonly name: string
  readonly status: JourneyStatus
  readonly definition: JourneyDefinition
}

const PINNED = `SELECT r.id, r.journey_id, r.version, r.contact_id, r.scope, r.hotel_id, r.reservation_id, r.state, r.step_index,
    r.wake_at, r.wake_seq, r.steps_taken, r.trigger, r.started_at, r.ended_at, r.exit_reason, r.error,
    j.name AS journey_name, j.status AS journey_status, v.definition AS journey_definition
  FROM journey_runs r
  JOIN journey_versions v ON v.journey_id = r.journey_id AND v.version = r.version
  JOIN journey_definitions j ON j.id = r.journey_id
  WHERE r.tenant_id = $1 AND r.sandbox = $2`

type PinnedRow = RunRow & { journey_name: string; journey_status: JourneyStatus; journey_definition: JourneyDefinition }
const toPinned = ({ journey_name, journey_status, journey_definition, ...r }: PinnedRow): PinnedRun =>
  ({ run: toRun(r), journey: { name: journey_name, status: journey_status, definition: journey_definition } })

/** The contact's live runs, each with its pinned version. */
export const liveRuns = async (tx: Tx, scope: TenantScope, contactId: string): Promise<Array<PinnedRun>> =>
  (await tx.unsafe<Array<PinnedRow>>(`${PINNED} AND r.contact_id = $3 AND r.state IN ('active', 'waiting')`,
    [scope.tenant_id, scope.sandbox, contactId], PREPARED)).map(toPinned)

export const runById = async (tx: Tx, scope: TenantScope, runId: string): Promise<PinnedRun | undefined> => {
  const [row] = await tx.unsafe<Array<PinnedRow>>(`${PINNED} AND r.id = $3`, [scope.tenant_id, scope.sandbox, runId], PREPARED)
  return row === undefined ? undefined : toPinned(row)
}

/**
 * Active journeys an event name (or, for a date trigger, one journey id) may start, at their current version, each
 * with when the contact last entered it in this scope (re-entry counts per scope).
 */
export const candidateJourneys = async (
  tx: Tx, scope: TenantScope, s: { eventName: string; journeyId: string | undefined; contactId: string; runScope: string }
) => {
  const rows = await tx<Array<CandidateJourney & { name: string; last_started_at: Date | null }>>`
    SELECT j.id, j.version, j.name, j.hotel_ids, v.definition,
      (SELECT max(r.started_at) FROM journey_runs r
        WHERE r.contact_id = ${s.contactId} AND r.journey_id = j.id AND r.scope = ${s.runScope}) AS last_started_at
    FROM journey_definitions j JOIN journey_versions v ON v.journey_id = j.id AND v.version = j.version
    WHERE j.tenant_id = ${scope.tenant_id} AND j.sandbox = ${scope.sandbox} AND j.status = 'active'
      AND ${s.journeyId === undefined ? tx`j.trigger_event_type = ${s.eventName}` : tx`j.id = ${s.journeyId}`}`
  return rows.map(({ last_started_at, ...j }) => ({ ...j, last_started_at: last_started_at === null ? undefined : last_started_at.getTime() }))
}

export const contactFacts = async (tx: Tx, scope: TenantScope, contactId: string): Promise<ContactFacts | undefined> => {
  const [row] = await tx<Array<ContactFacts>>`
    SELECT first_name, last_name, email, phone, language, email_consent, whatsapp_marketing_consent FROM contacts
    WHERE id = ${contactId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return row
}

export const hotelFacts = async (tx: Tx, scope: TenantScope, hotelId: string | null): Promise<HotelFacts | null> => {
  if (hotelId === null) return null
  const [row] = await tx<Array<HotelFacts>>`
    SELECT id, name, code, timezone FROM hotels WHERE id = ${hotelId} AND tenant_id = ${scope.tenant_id}`
  return row ?? null
}

interface ReservationRow extends Omit<ReservationFacts, "created_at"> {
  readonly created_at: Date
}
const toReservation = (r: ReservationRow | undefined): ReservationFacts | null =>
  r === undefined ? null : { ...r, created_at: r.created_at.getTime() }

/** A reservation by id, or else the contact's current or next stay (the latest when none is to come). */
export const reservationFacts = async (tx: Tx, scope: TenantScope, reservationId: string | null, contactId: string) => {
  const [row] = reservationId !== null
    ? await tx<Array<ReservationRow>>`
      SELECT id, status, to_char(check_in, 'YYYY-MM-DD') AS check_in, to_char(check_out, 'YYYY-MM-DD') AS check_out, hotel_id, created_at
      FROM reservations WHERE id = ${reservationId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
    : await tx<Array<ReservationRow>>`
      SELECT r.id, r.status, to_char(r.check_in, 'YYYY-MM-DD') AS check_in, to_char(r.check_out, 'YYYY-MM-DD') AS check_out,
        r.hotel_id, r.created_at
      FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id
      WHERE g.contact_id = ${contactId} AND r.tenant_id = ${scope.tenant_id} AND r.sandbox = ${scope.sandbox}
        AND r.status NOT IN ('cancelled', 'no_show')
      ORDER BY (r.check_out >= current_date) DESC, CASE WHEN r.check_out >= current_date THEN r.check_in END ASC, r.check_in DESC
      LIMIT 1`
  return toReservation(row)
}

export const channelFacts = async (tx: Tx, scope: TenantScope): Promise<ChannelFacts> => {
  const [email, whatsapp] = await Promise.all([readEmailChannel(tx, scope), readWhatsAppSetup(tx, scope)])
  return { email: email !== null, whatsapp: whatsapp !== null, templates: whatsapp?.templates ?? [] }
}

/** Writes runs as they now are (new ones inserted, owned by `namespace`'s timer sweep; others updated). */
export const saveRuns = async (tx: Tx, scope: TenantScope, runs: ReadonlyArray<Run>, now: Date, namespace: string) => {
  if (runs.length === 0) return
  const rows = runs.map((r) => ({
    id: r.id, tenant_id: scope.tenant_id, sandbox: scope.sandbox, journey_id: r.journey_id, version: r.version,
    contact_id: r.contact_id, scope: r.scope, hotel_id: r.hotel_id, reservation_id: r.reservation_id, state: r.state,
    step_index: r.step_index, wake_at: r.wake_at === null ? null : new Date(r.wake_at), wake_seq: r.wake_seq,
    steps_taken: r.steps_taken, trigger: jsonb(tx, r.trigger), started_at: new Date(r.started_at),
    ended_at: r.ended_at === null ? null : new Date(r.ended_at), exit_reason: r.exit_reason,
    error: r.error === null ? null : jsonb(tx, r.error), updated_at: now, namespace
  }))
  await tx`
    INSERT INTO journey_runs ${tx(rows)}
    ON CONFLICT (id) DO UPDATE SET state = excluded.state, step_index = excluded.step_index, wake_at = excluded.wake_at,
      wake_seq = excluded.wake_seq, steps_taken = excluded.steps_taken, ended_at = excluded.ended_at,
      exit_reason = excluded.exit_reason, error = excluded.error, updated_at = excluded.updated_at`
}

export const saveSteps = async (tx: Tx, scope: TenantScope, moves: ReadonlyArray<Move>) => {
  const rows = moves.flatMap((m) => (m.kind === "step"
    ? [{
      run_id: m.run_id, seq: m.seq, tenant_id: scope.tenant_id, step_id: m.step_id, step_type: m.step_type,
      outcome: m.outcome, reason: m.reason, message_id: m.message_id, at: new Date(m.at),
      // The values the message rendered with, in the step's own row (one more column of the same insert).
      merge_values: m.merge_values === undefined ? null : jsonb(tx, m.merge_values)
    }]
    : []))
  if (rows.length > 0) await tx`INSERT INTO journey_run_steps ${tx(rows)}`
}
