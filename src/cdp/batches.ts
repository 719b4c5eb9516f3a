import { randomUUID } from "node:crypto"
import { jsonb, type Sql, withTenant } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { BatchStatus } from "../../schemas/cdp.ts"

// Bulk jobs as the API sees them: accepted whole (job and items in one transaction, before the 202), read back with
// their progress counted from the items (no hot counter row).

export type JobItem = { readonly payload: unknown } | { readonly error: { message: string; code: string; details: Record<string, unknown> } }

export interface Accepted {
  readonly batch_id: string
  readonly status: BatchStatus["status"]
  readonly total: number
}

/**
 * Stores a job and its items, for the runners of `namespace` (the deployment whose streams will carry its items); an
 * item refused by validation is stored already failed with its error. A repeated
 * `idempotency_key` answers the job it first created and stores nothing.
 */
export const createBatch = (
  sql: Sql, scope: TenantScope, namespace: string, items: ReadonlyArray<JobItem>, idempotencyKey: string | undefined
): Promise<Accepted> =>
  withTenant(sql, scope.tenant_id, async (tx) => {
    const id = `bat_${randomUUID().replaceAll("-", "")}`
    const [row] = await tx<Array<Accepted>>`
      INSERT INTO cdp_batches (id, tenant_id, sandbox, total, idempotency_key, namespace)
      VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${items.length}, ${idempotencyKey ?? null}, ${namespace})
      ON CONFLICT (tenant_id, sandbox, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
      RETURNING id AS batch_id, status, total`
    if (row === undefined) {
      const [first] = await tx<Array<Accepted>>`
        SELECT id AS batch_id, status, total FROM cdp_batches
        WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND idempotency_key = ${idempotencyKey!}`
      return first!
    }
    const rows = items.map((item, idx) => "error" in item
      ? { idx, payload: {}, outcome: "failed", error: item.error }
      : { idx, payload: item.payload, outcome: null, error: null })
    // One statement per 1,000 items keeps each parameter well under PostgreSQL's limits.
    for (let i = 0; i < rows.length; i += 1_000) {
      await tx`
        INSERT INTO cdp_batch_items (batch_id, tenant_id, idx, payload, outcome, error)
        SELECT ${id}, ${scope.tenant_id}, r.idx, r.payload, r.outcome, r.error
        FROM jsonb_to_recordset(${jsonb(tx, rows.slice(i, i + 1_000))}::jsonb) AS r(idx int, payload jsonb, outcome text, error jsonb)`
    }
    return row
  })

/** A job of this account and mode with its counts and errors, or undefined. */
export const readBatch = (sql: Sql, scope: TenantScope, id: string): Promise<BatchStatus | undefined> =>
  withTenant(sql, scope.tenant_id, async (tx) => {
    const [job] = await tx`
      SELECT id, status, total, created_at, started_at, completed_at FROM cdp_batches
      WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
    if (job === undefined) return undefined
    const [[counts], errors] = await Promise.all([
      tx`SELECT count(*) FILTER (WHERE outcome = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE outcome = 'failed')::int AS failed
         FROM cdp_batch_items WHERE batch_id = ${id}`,
      tx`SELECT idx, error FROM cdp_batch_items WHERE batch_id = ${id} AND outcome = 'failed' ORDER BY idx`
    ])
    const succeeded = counts!.succeeded as number
    const failed = counts!.failed as number
    const iso = (d: Date | null) => (d === null ? null : d.toISOString())
    return {
      batch_id: job.id, status: job.status, total: job.total, processed: succeeded + failed, succeeded, failed,
      errors: errors.map((e) => ({ index: e.idx as number, error: e.error })),
      created_at: (job.created_at as Date).toISOString(), started_at: iso(job.started_at), completed_at: iso(job.completed_at)
    } as BatchStatus
  })
