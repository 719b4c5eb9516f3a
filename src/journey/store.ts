import { readEmailChannel, readWhatsAppSetup } from "../../core/channel/repository.ts"
import { jsonb, type Tx } from "../../core/db/Database.ts"
import type { AccountFacts } from "../../core/journey/validate.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { isUuid } from "../../schemas/common.ts"
import type { JourneyDefinition, JourneyStatus } from "../../schemas/journey.ts"
import type { JourneyView } from "../../schemas/journeyApi.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"

// Journey definitions as the API writes and reads them, in a transaction confined to the caller's tenant (row-level
// security) and filtered by its mode. The header row keeps what an event's match reads (status, trigger event type,
// hotels); every saved definition is an immutable row of journey_versions.

const modeOf = (scope: TenantScope) => (scope.sandbox ? "sandbox" : "live")

/** What the definition check needs of the account: the named hotels that exist, and the channels. */
export const accountFacts = async (tx: Tx, scope: TenantScope, hotelIds: ReadonlyArray<string>): Promise<AccountFacts> => {
  const [hotels, email, whatsApp] = await Promise.all([
    hotelIds.length === 0
      ? Promise.resolve([])
      : tx`SELECT id::text AS id FROM hotels WHERE tenant_id = ${scope.tenant_id} AND id::text = ANY(${hotelIds as Array<string>})`,
    readEmailChannel(tx, scope),
    readWhatsAppSetup(tx, scope)
  ])
  return {
    hotelIds: new Set(hotels.map((h) => h.id as string)),
    emailConfigured: email !== null,
    whatsAppTemplates: whatsApp === null ? null : whatsApp.templates,
    mode: modeOf(scope)
  }
}

/** The header columns a definition decides. */
const headerOf = (d: JourneyDefinition) => ({
  name: d.name,
  hotel_ids: [...new Set(d.hotel_ids ?? [])],
  trigger_type: d.trigger.type,
  trigger_event_type: d.trigger.type === "event" ? d.trigger.event : null
})

/** A definition as stored: the fields of the wire schema only, hotel ids deduplicated. */
export const storedDefinition = (d: JourneyDefinition): JourneyDefinition => ({
  name: d.name, hotel_ids: headerOf(d).hotel_ids, trigger: d.trigger, steps: d.steps
})

export const insertJourney = async (tx: Tx, scope: TenantScope, id: string, d: JourneyDefinition, status: JourneyStatus) => {
  const h = headerOf(d)
  await tx`INSERT INTO journey_definitions (id, tenant_id, sandbox, name, trigger_event_type, status, version, hotel_ids, trigger_type)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${h.name}, ${h.trigger_event_type}, ${status}, 1, ${h.hotel_ids}::uuid[], ${h.trigger_type})`
  await tx`INSERT INTO journey_versions (journey_id, version, tenant_id, sandbox, definition)
    VALUES (${id}, 1, ${scope.tenant_id}, ${scope.sandbox}, ${jsonb(tx, storedDefinition(d))})`
}

/** Version n+1 becomes current; runs on earlier versions keep theirs. */
export const saveVersion = async (tx: Tx, scope: TenantScope, id: string, version: number, d: JourneyDefinition) => {
  const h = headerOf(d)
  await tx`INSERT INTO journey_versions (journey_id, version, tenant_id, sandbox, definition)
    VALUES (${id}, ${version}, ${scope.tenant_id}, ${scope.sandbox}, ${jsonb(tx, storedDefinition(d))})`
  await tx`UPDATE journey_definitions SET name = ${h.name}, hotel_ids = ${h.hotel_ids}::uuid[], trigger_type = ${h.trigger_type},
      trigger_event_type = ${h.trigger_event_type}, version = ${version}, updated_at = now()
    WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
}

export const setStatus = async (tx: Tx, scope: TenantScope, id: string, status: JourneyStatus) => {
  await tx`UPDATE journey_definitions SET status = ${status}, updated_at = now()
    WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
}

interface JourneyRecord {
  id: string
  name: string
  status: JourneyStatus
  version: number
  trigger_type: "event" | "reservation_date"
  trigger_event_type: string | null
  hotel_ids: Array<string>
  created_at: Date
  updated_at: Date
  version_created_at: Date
  definition: JourneyDefinition
  cursor_at: string
}

const COLUMNS = `d.id, d.name, d.status, d.version, d.trigger_type, d.trigger_event_type, d.hotel_ids::text[] AS hotel_ids, d.created_at,
  d.updated_at, v.created_at AS version_created_at, v.definition, ${exactTime("d.created_at")} AS cursor_at`

const view = (r: JourneyRecord): JourneyView => ({
  journey_id: r.id,
  name: r.name,
  status: r.status,
  version: r.version,
  trigger_type: r.trigger_type,
  trigger_event: r.trigger_event_type,
  hotel_ids: r.hotel_ids,
  trigger: r.definition.trigger,
  steps: r.definition.steps,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  version_created_at: r.version_created_at.toISOString()
})

/**
 * One journey of the caller's tenant and mode with its current definition; `lock` holds its header until commit. The
 * header is locked on its own first: a `FOR UPDATE` on the join would, after waiting for a concurrent edit, re-check
 * the join against the header's new version and find no row.
 */
export const readJourney = async (tx: Tx, scope: TenantScope, id: string, lock = false): Promise<JourneyView | undefined> => {
  if (!isUuid(id)) return undefined
  if (lock) {
    const locked = await tx`SELECT 1 FROM journey_definitions WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} FOR UPDATE`
    if (locked.length === 0) return undefined
  }
  const [row] = await tx.unsafe<Array<JourneyRecord>>(
    `SELECT ${COLUMNS} FROM journey_definitions d JOIN journey_versions v ON v.journey_id = d.id AND v.version = d.version
     WHERE d.id = $1 AND d.tenant_id = $2 AND d.sandbox = $3`,
    [id, scope.tenant_id, scope.sandbox])
  return row ? view(row) : undefined
}

const NO_RUNS = { entered: 0, waiting: 0, completed: 0, stopped: 0, failed: 0 }

/**
 * The run counts of a page's journeys: the sums of their counter rows (migration 043, kept by triggers on
 * journey_runs in the writers' own transactions), at most 64 rows a journey however many runs it started. `waiting`
 * counts every live run: `active` is the moment a step runs, between two waits.
 */
const runCounts = async (tx: Tx, journeyIds: ReadonlyArray<string>) => {
  if (journeyIds.length === 0) return new Map<string, typeof NO_RUNS>()
  const rows = await tx<Array<{ journey_id: string } & typeof NO_RUNS>>`
    SELECT journey_id, sum(entered)::int AS entered, sum(live)::int AS waiting, sum(completed)::int AS completed,
      sum(stopped)::int AS stopped, sum(failed)::int AS failed
    FROM journey_run_counts WHERE journey_id = ANY(${journeyIds as Array<string>}::uuid[]) GROUP BY journey_id`
  return new Map(rows.map(({ journey_id, ...c }) => [journey_id, c]))
}

export interface JourneyFilters {
  readonly status?: string | undefined
  readonly trigger_event?: string | undefined
  readonly hotel_id?: string | undefined
}

/** The journeys, newest first, keyset-paginated on (created_at, id); a definition's step count instead of its steps. */
export const listJourneys = async (tx: Tx, scope: TenantScope, f: JourneyFilters, o: PageRequest) => {
  const after = o.after
  const rows = await tx.unsafe<Array<JourneyRecord>>(
    `SELECT ${COLUMNS} FROM journey_definitions d JOIN journey_versions v ON v.journey_id = d.id AND v.version = d.version
     WHERE d.tenant_id = $1 AND d.sandbox = $2
       AND ($3::text IS NULL OR d.status = $3)
       AND ($4::text IS NULL OR d.trigger_event_type = $4)
       AND ($5::uuid IS NULL OR d.hotel_ids = '{}' OR $5::uuid = ANY(d.hotel_ids))
       AND ($6::text IS NULL OR (d.created_at, d.id) < ($6::text::timestamptz, $7::uuid))
     ORDER BY d.created_at DESC, d.id DESC LIMIT $8`,
    [scope.tenant_id, scope.sandbox, f.status ?? null, f.trigger_event ?? null, f.hotel_id ?? null, after?.at ?? null, after?.id ?? null, o.limit + 1])
  const { shown, next_cursor } = pageOf(rows, o.limit, (r) => ({ at: r.cursor_at, id: r.id }))
  const counts = await runCounts(tx, shown.map((r) => r.id))
  return {
    journeys: shown.map((r) => {
      const { trigger: _t, steps, ...rest } = view(r)
      return { ...rest, steps: steps.length, counts: counts.get(r.id) ?? NO_RUNS }
    }),
    next_cursor
  }
}
