import { PREPARED, withRecords } from "../../core/db/Database.ts"
import { groupBatched } from "../runtime/groupBatch.ts"

// The event actor's statements, each one multi-row statement for all the events of a wave that ask it in the same
// turn (runtime/groupBatch.ts, ADR 0034). Each answers one value per input, in order; the tenant filtered explicitly.
// Ids come back in PostgreSQL's form (lower case): inputs are looked up lower-cased, as `WHERE id = $1` matched them.

export interface EventRow {
  readonly id: string
  readonly type: string
  readonly contact_id: string | null
  readonly hotel_id: string | null
  readonly created_at: Date
}

const EVENT_COLUMNS = "id, type, contact_id, hotel_id, created_at"

/** The event first recorded under each idempotency key, if any. */
export const eventsByIdempotencyKey = groupBatched("EventWave.byIdempotencyKey", async (tx, scope, keys: ReadonlyArray<string>) => {
  const rows = await tx.unsafe<Array<EventRow & { idempotency_key: string }>>(
    `SELECT ${EVENT_COLUMNS}, idempotency_key FROM events WHERE tenant_id = $1 AND sandbox = $2 AND idempotency_key = ANY($3::text[])`,
    [scope.tenant_id, scope.sandbox, [...new Set(keys)] as never], PREPARED
  )
  const by = new Map(rows.map(({ idempotency_key, ...row }) => [idempotency_key, row] as const))
  return keys.map((k) => by.get(k))
})

export type ContactAsk = { readonly contact_id: string } | { readonly phone: string }

/** The contact each event names, by id or by phone: its id, or undefined when the account has none. */
export const contactsNamed = groupBatched("EventWave.contactsNamed", async (tx, scope, asks: ReadonlyArray<ContactAsk>) => {
  const ids = asks.flatMap((a) => ("contact_id" in a ? [a.contact_id] : []))
  const phones = asks.flatMap((a) => ("phone" in a ? [a.phone] : []))
  const [byId, byPhone] = await Promise.all([
    ids.length === 0 ? [] : tx.unsafe<Array<{ id: string }>>(
      `SELECT id FROM contacts WHERE id = ANY($3::uuid[]) AND tenant_id = $1 AND sandbox = $2`,
      [scope.tenant_id, scope.sandbox, [...new Set(ids)] as never], PREPARED),
    phones.length === 0 ? [] : tx.unsafe<Array<{ id: string; phone: string }>>(
      `SELECT DISTINCT ON (phone) id, phone FROM contacts WHERE tenant_id = $1 AND sandbox = $2 AND phone = ANY($3::text[]) ORDER BY phone, id`,
      [scope.tenant_id, scope.sandbox, [...new Set(phones)] as never], PREPARED)
  ])
  const known = new Set(byId.map((r) => r.id))
  const phoneOf = new Map(byPhone.map((r) => [r.phone, r.id] as const))
  return asks.map((a) => ("contact_id" in a ? (known.has(a.contact_id.toLowerCase()) ? a.contact_id : undefined) : phoneOf.get(a.phone)))
})

export interface NewEvent {
  readonly id: string
  readonly type: string
  readonly contact_id: string | null
  readonly hotel_id: string | null
  readonly source: string
  readonly payload: unknown
  readonly idempotency_key: string | null
}

/** Records the wave's events in one statement; each answered with its row. */
export const insertEvents = groupBatched("EventWave.insert", async (tx, scope, events: ReadonlyArray<NewEvent>) => {
  const rows = await withRecords(tx, scope,
    `INSERT INTO events (id, tenant_id, sandbox, type, contact_id, hotel_id, source, payload, idempotency_key)
     SELECT e.id, $1, $2, e.type, e.contact_id, e.hotel_id, e.source, e.payload, e.idempotency_key
     FROM jsonb_to_recordset($3::jsonb) AS e(id uuid, type text, contact_id uuid, hotel_id uuid, source text, payload jsonb, idempotency_key text)
     RETURNING ${EVENT_COLUMNS}`,
    events) as unknown as ReadonlyArray<EventRow>
  const by = new Map(rows.map((r) => [r.id, r] as const))
  return events.map((e) => by.get(e.id.toLowerCase())!)
})

/** How many active journeys of the account each event type (at each hotel) triggers. */
export const matchingJourneys = groupBatched(
  "EventWave.matchingJourneys",
  async (tx, scope, asks: ReadonlyArray<{ readonly type: string; readonly hotel_id: string | null }>) => {
    const rows = await withRecords(tx, scope,
      `SELECT a.i, (SELECT count(*)::int FROM journey_definitions j
         WHERE j.tenant_id = $1 AND j.sandbox = $2 AND j.status = 'active' AND j.trigger_event_type = a.type
           AND (j.hotel_ids = '{}' OR a.hotel_id = ANY(j.hotel_ids))) AS n
       FROM jsonb_to_recordset($3::jsonb) AS a(i int, type text, hotel_id uuid)`,
      asks.map((a, i) => ({ i, type: a.type, hotel_id: a.hotel_id })))
    const by = new Map(rows.map((r) => [r.i as number, r.n as number] as const))
    return asks.map((_, i) => by.get(i) ?? 0)
  }
)
