import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { isUuid } from "../../schemas/common.ts"
import type { RunState } from "../../schemas/journey.ts"
import type { RunView } from "../../schemas/journeyApi.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"

// Reads of journey runs (the journey actor writes them), confined to the caller's tenant and mode.

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

interface RunRecord {
  id: string
  journey_id: string
  version: number
  contact_id: string
  scope: string
  hotel_id: string | null
  reservation_id: string | null
  state: RunState
  exit_reason: string | null
  error: RunView["error"]
  started_at: Date
  ended_at: Date | null
  wake_at: Date | null
  trigger: Record<string, unknown> | null
  cursor_at: string
}

const COLUMNS = `id, journey_id, version, contact_id, scope, hotel_id, reservation_id, state, exit_reason, error, started_at, ended_at,
  wake_at, trigger, ${exactTime("started_at")} AS cursor_at`

const text = (v: unknown) => (typeof v === "string" ? v : null)

const triggerOf = (t: RunRecord["trigger"]) => ({ event_name: text(t?.["event_name"]), event_id: text(t?.["event_id"]), origin: text(t?.["origin"]) })

const summary = (r: RunRecord) => ({
  run_id: r.id,
  journey_id: r.journey_id,
  version: r.version,
  contact_id: r.contact_id,
  scope: r.scope,
  hotel_id: r.hotel_id,
  reservation_id: r.reservation_id,
  state: r.state,
  exit_reason: r.exit_reason,
  error: r.error ?? null,
  started_at: r.started_at.toISOString(),
  ended_at: iso(r.ended_at),
  wake_at: iso(r.wake_at),
  // What started it; the frozen payload only in the run itself (GET /api/v1/journey-runs/{run_id}), not in lists.
  trigger: triggerOf(r.trigger)
})

/**
 * The payload the run froze at its start, without the other guests a booking event lists (`contact_ids`: not this
 * guest's data, as the privacy export leaves them out too).
 */
const payloadOf = (t: RunRecord["trigger"]): Record<string, unknown> => {
  const p = t?.["payload"]
  if (typeof p !== "object" || p === null || Array.isArray(p)) return {}
  const { contact_ids: _others, ...rest } = p as Record<string, unknown>
  return rest
}

interface StepRecord {
  step_id: string
  step_type: string
  outcome: string
  reason: string | null
  message_id: string | null
  at: Date
  message_status: string | null
  skip_reason: string | null
  error_code: string | null
  merge_values: Record<string, string | null> | null
}

/**
 * A step's outcome as the guest saw it: a `sent` step whose message was then skipped or failed (a consent withdrawn
 * before delivery, a provider's permanent refusal) shows that, with the message's reason; the message's status stays
 * visible (queued, sent, delivered, read).
 */
export const stepView = (s: StepRecord): RunView["steps"][number] => {
  const settled = s.outcome === "sent" && s.message_status === "skipped"
    ? { outcome: "skipped", reason: s.skip_reason ?? s.reason }
    : s.outcome === "sent" && s.message_status === "failed"
    ? { outcome: "failed", reason: s.error_code ?? s.reason }
    : { outcome: s.outcome, reason: s.reason }
  return {
    step_id: s.step_id, type: s.step_type, ...settled, message_id: s.message_id, message_status: s.message_status,
    at: s.at.toISOString(), merge_values: s.merge_values
  }
}

const stepsOf = (tx: Tx, runId: string) =>
  tx<Array<StepRecord>>`
    SELECT s.step_id, s.step_type, s.outcome, s.reason, s.message_id::text AS message_id, s.at,
      m.status AS message_status, m.skip_reason, m.error_code, s.merge_values
    FROM journey_run_steps s LEFT JOIN messages m ON m.id = s.message_id
    WHERE s.run_id = ${runId} ORDER BY s.seq`

/** One run of the caller's tenant and mode with its steps; undefined when there is none. */
export const readRun = async (tx: Tx, scope: TenantScope, runId: string): Promise<RunView | undefined> => {
  if (!isUuid(runId)) return undefined
  const [row] = await tx.unsafe<Array<RunRecord>>(
    `SELECT ${COLUMNS} FROM journey_runs WHERE id = $1 AND tenant_id = $2 AND sandbox = $3`, [runId, scope.tenant_id, scope.sandbox])
  if (!row) return undefined
  const run = summary(row)
  return { ...run, trigger: { ...run.trigger, payload: payloadOf(row.trigger) }, steps: (await stepsOf(tx, row.id)).map(stepView) }
}

/** A journey's runs, newest first, keyset-paginated on (started_at, id). */
export const journeyRuns = async (
  tx: Tx,
  journeyId: string,
  o: PageRequest & { readonly state?: string | undefined; readonly contact_id?: string | undefined }
) => {
  const after = o.after
  const rows = await tx.unsafe<Array<RunRecord>>(
    `SELECT ${COLUMNS} FROM journey_runs WHERE journey_id = $1
       AND ($2::text IS NULL OR state = $2)
       AND ($3::uuid IS NULL OR contact_id = $3::uuid)
       AND ($4::text IS NULL OR (started_at, id) < ($4::text::timestamptz, $5::uuid))
     ORDER BY started_at DESC, id DESC LIMIT $6`,
    [journeyId, o.state ?? null, o.contact_id ?? null, after?.at ?? null, after?.id ?? null, o.limit + 1])
  const { shown, next_cursor } = pageOf(rows, o.limit, (r) => ({ at: r.cursor_at, id: r.id }))
  return { runs: shown.map(summary), next_cursor }
}
