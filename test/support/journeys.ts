import type postgres from "postgres"
import type { TestTenant } from "./platform.ts"
import { eventually } from "./webhook.ts"

/** A journey saved and activated as the definitions API stores it (header + version 1). */
export const createJourney = async (
  sql: postgres.Sql, tenant: TestTenant, definition: Record<string, any>, o: { status?: string; sandbox?: boolean } = {}
): Promise<string> => {
  const trigger = definition.trigger
  const [row] = await sql`
    INSERT INTO journey_definitions (tenant_id, sandbox, name, trigger_event_type, trigger_type, status, version, hotel_ids)
    VALUES (${tenant.tenant_id}, ${o.sandbox ?? false}, ${definition.name}, ${trigger.type === "event" ? trigger.event : null},
      ${trigger.type}, ${o.status ?? "active"}, 1, ${definition.hotel_ids ?? []}::uuid[])
    RETURNING id`
  await sql`INSERT INTO journey_versions (journey_id, version, tenant_id, sandbox, definition)
    VALUES (${row!.id}, 1, ${tenant.tenant_id}, ${o.sandbox ?? false}, ${sql.json(definition)})`
  return row!.id as string
}

export const setJourneyStatus = (sql: postgres.Sql, journeyId: string, status: string) =>
  sql`UPDATE journey_definitions SET status = ${status}, updated_at = now() WHERE id = ${journeyId}`

export interface RunRow {
  readonly id: string
  readonly state: string
  readonly exit_reason: string | null
  readonly error: any
  readonly scope: string
  readonly wake_at: Date | null
  readonly started_at: Date
  readonly ended_at: Date | null
}

export const runsOf = (sql: postgres.Sql, journeyId: string, contactId?: string) =>
  sql<Array<RunRow>>`SELECT id, state, exit_reason, error, scope, wake_at, started_at, ended_at FROM journey_runs
    WHERE journey_id = ${journeyId} ${contactId === undefined ? sql`` : sql`AND contact_id = ${contactId}`} ORDER BY started_at`

export const stepsOf = (sql: postgres.Sql, runId: string) =>
  sql<Array<{ step_id: string; outcome: string; reason: string | null; message_id: string | null; status: string | null; skip_reason: string | null }>>`
    SELECT s.step_id, s.outcome, s.reason, s.message_id, m.status, m.skip_reason
    FROM journey_run_steps s LEFT JOIN messages m ON m.id = s.message_id WHERE s.run_id = ${runId} ORDER BY s.seq`

/** Waits for the journey's run of that contact to reach a state. */
export const runIn = (sql: postgres.Sql, journeyId: string, contactId: string, states: ReadonlyArray<string>, timeoutMs = 90_000) =>
  eventually(`a run of ${journeyId} in ${states.join("|")}`, async () =>
    (await runsOf(sql, journeyId, contactId)).find((r) => states.includes(r.state)), timeoutMs)
