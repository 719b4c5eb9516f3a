import type { Tx } from "../db/Database.ts"
import type { TenantScope } from "../TenantScope.ts"
import { objectKeyOf } from "./objectKey.ts"

/** One webhook event about to be written to the outbox. */
export interface SequencedEvent extends TenantScope {
  readonly event_type: string
  readonly data: unknown
}

/**
 * The `sequence` of each event (in the order given), from one counter row per (tenant, mode, object key), taken in
 * the transaction that writes the events' outbox rows. Why it increases per object in the order of the changes:
 * - the upsert locks the counter row until commit, so of two transactions changing one object the second waits and
 *   continues from the first's committed value: numbers follow commit order;
 * - a rolled-back transaction (a crash, a lost lease) gives its numbers back with its outbox rows, and a redelivered
 *   envelope writes no new row: the committed outbox payload, sequence inside, is what every republish, retry,
 *   resend and replay sends;
 * - the value never falls below the database clock in microseconds, so a counter row swept after 30 idle days
 *   restarts above every number it ever gave (numbers are increasing, not contiguous; they stay below 2^53).
 * Rows are locked in key order, so concurrent transactions touching several objects never deadlock on them.
 *
 * An account and mode without any subscription gets 0 and no counter row: its events reach nobody (the fan-out finds
 * no target), so ingestion of accounts that use no webhooks writes nothing more. 0 is below every counted number, so
 * an event that meets a subscription being created at that very moment is still older than every later one.
 */
export const assignSequences = async (tx: Tx, events: ReadonlyArray<SequencedEvent>): Promise<Array<number>> => {
  if (events.length === 0) return []
  const keys = events.map((e) => `${e.tenant_id}|${e.sandbox}|${objectKeyOf(e.event_type, e.data)}`)
  const counts = new Map<string, number>()
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1)
  const distinct = [...counts.keys()].sort()
  const parts = distinct.map((k) => k.split("|"))
  const rows = await tx<Array<{ tenant_id: string; sandbox: boolean; object_key: string; last_value: string }>>`
    WITH input AS (
      SELECT * FROM unnest(${parts.map((p) => p[0]!)}::uuid[], ${parts.map((p) => p[1]!)}::text[]::boolean[],
        ${parts.map((p) => p.slice(2).join("|"))}::text[], ${distinct.map((k) => counts.get(k)!)}::int[])
        AS x(tenant_id, sandbox, object_key, n)
    ), listening AS (
      SELECT DISTINCT tenant_id, sandbox FROM webhook_subscriptions
      WHERE (tenant_id, sandbox) IN (SELECT tenant_id, sandbox FROM input)
    )
    INSERT INTO webhook_sequences AS w (tenant_id, sandbox, object_key, last_value)
    SELECT tenant_id, sandbox, object_key, floor(extract(epoch FROM clock_timestamp()) * 1e6)::bigint + n - 1
    FROM input JOIN listening USING (tenant_id, sandbox) ORDER BY tenant_id, sandbox, object_key
    ON CONFLICT (tenant_id, sandbox, object_key) DO UPDATE
    SET last_value = greatest(excluded.last_value, w.last_value + (
          SELECT i.n FROM input i
          WHERE i.tenant_id = excluded.tenant_id AND i.sandbox = excluded.sandbox AND i.object_key = excluded.object_key)),
      updated_at = now()
    RETURNING tenant_id, sandbox, object_key, last_value`
  // The block of each key ends at its last value; its events take the block's numbers in order.
  const next = new Map(rows.map((r) => {
    const k = `${r.tenant_id}|${r.sandbox}|${r.object_key}`
    return [k, Number(r.last_value) - counts.get(k)! + 1] as const
  }))
  return keys.map((k) => {
    const n = next.get(k)
    if (n === undefined) return 0
    next.set(k, n + 1)
    return n
  })
}

/** Counter rows idle for 30 days, removed a bounded batch at a time (safe: see assignSequences). */
export const purgeIdleSequences = (tx: Tx, before: Date, batch: number) => tx`
  DELETE FROM webhook_sequences WHERE (tenant_id, sandbox, object_key) IN (
    SELECT tenant_id, sandbox, object_key FROM webhook_sequences WHERE updated_at < ${before} LIMIT ${batch})`
