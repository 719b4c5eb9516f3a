import { readEmailChannel, readWhatsAppSetup } from "../../core/channel/repository.ts"
import { jsonb, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { JourneyDefinition, JourneyStatus } from "../../schemas/journey.ts"
import type { ChannelFacts, ReservationFacts } from "./facts.ts"
import type { Run } from "./run.ts"
import type { Move } from "./state.ts"

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

export const PINNED = `SELECT r.id, r.journey_id, r.version, r.contact_id, r.scope, r.hotel_id, r.reservation_id, r.state, r.step_index,
    r.wake_at, r.wake_seq, r.steps_taken, r.trigger, r.started_at, r.ended_at, r.exit_reason, r.error,
    j.name AS journey_name, j.status AS journey_status, v.definition AS journey_definition
  FROM journey_runs r
  JOIN journey_versions v ON v.journey_id = r.journey_id AND v.version = r.version
  JOIN journey_definitions j ON j.id = r.journey_id
  WHERE r.tenant_id = $1 AND r.sandbox = $2`

export type PinnedRow = RunRow & { journey_name: string; journey_status: JourneyStatus; journey_definition: JourneyDefinition }
export const toPinned = ({ journey_name, journey_status, journey_definition, ...r }: PinnedRow): PinnedRun =>
  ({ run: toRun(r), journey: { name: journey_name, status: journey_status, definition: journey_definition } })

export interface ReservationRow extends Omit<ReservationFacts, "created_at"> {
  readonly created_at: Date
}
/** A reservation's facts as its row gives them (`r` is the reservations table). */
export const RESERVATION_FACTS =
  `r.id, r.status, to_char(r.check_in, 'YYYY-MM-DD') AS check_in, to_char(r.check_out, 'YYYY-MM-DD') AS check_out, r.hotel_id, r.created_at`
export const toReservation = (r: ReservationRow | undefined): ReservationFacts | null =>
  r === undefined ? null : { ...r, created_at: r.created_at.getTime() }

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
