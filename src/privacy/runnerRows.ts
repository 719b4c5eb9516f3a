import { jsonb, type Sql, type Tx } from "../../core/db/Database.ts"
import { processId } from "../../core/processIdentity.ts"
import type { PrivacyRequestView } from "../../schemas/privacyApi.ts"

// The runner's hold on a privacy request: a lease on the row (like the CDP bulk jobs), renewed after every step, so a
// worker that dies lets another take the request over where its progress says.

export type Step = "wait" | "drain" | "settle" | "erase" | "streams" | "final" | "notify"

export interface Progress {
  /** Each stream's last sequence the current step works up to (the drains', then the stream erasure's). */
  readonly marks?: Record<string, number>
  /** Counts per store so far (a store erased in several runs adds up). */
  readonly counts?: Record<string, { action: string; count: number }>
  readonly failures?: number
  /** Stores whose erasure failed for good (the request ends partial). */
  readonly failed_stores?: ReadonlyArray<string>
}

export interface HeldRequest {
  readonly id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly type: "export" | "erase"
  readonly subject_sealed: Buffer | null
  readonly contact_ids: ReadonlyArray<string>
  readonly step: Step | null
  readonly progress: Progress
  readonly created_at: Date
}

/**
 * Takes the oldest request of this deployment still to be carried out whose lease is free, SKIP LOCKED. An erasure is
 * taken only once `settleMs` have passed since it was asked (every ingress has seen its suppression by then), so no
 * runner holds a request only to wait: a burst of erasures is worked through by all runners at once.
 */
export const claimRequest = async (sql: Sql, namespace: string, leaseMs: number, settleMs: number): Promise<HeldRequest | undefined> => {
  const [held] = await sql<Array<HeldRequest>>`
    UPDATE privacy_requests r SET owner = ${processId}, lease_until = now() + make_interval(secs => ${leaseMs / 1000}),
      status = 'running', started_at = coalesce(r.started_at, now())
    WHERE r.id = (SELECT id FROM privacy_requests
                  WHERE namespace = ${namespace} AND status IN ('received', 'running') AND (lease_until IS NULL OR lease_until < now())
                    AND (type = 'export' OR created_at < now() - make_interval(secs => ${settleMs / 1000}))
                  ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING r.id::text AS id, r.tenant_id::text AS tenant_id, r.sandbox, r.type, r.subject_sealed,
      r.contact_ids::text[] AS contact_ids, r.step, r.progress, r.created_at`
  return held
}

/**
 * Saves a step's outcome and extends the lease while this worker still holds the request; false once another took
 * it over (this worker then stops: the other goes on from the saved step).
 */
export const saveStep = async (
  sql: Sql, id: string, leaseMs: number, step: Step, progress: Progress, more: { contact_ids?: ReadonlyArray<string> } = {}
) =>
  (await sql`
    UPDATE privacy_requests SET step = ${step}, progress = ${jsonb(sql, progress)}::jsonb,
      contact_ids = coalesce(${more.contact_ids === undefined ? null : (more.contact_ids as Array<string>)}::uuid[], contact_ids),
      lease_until = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${id} AND owner = ${processId} AND status = 'running'`).count > 0

/** Extends the lease (a long wait between steps). */
export const renewLease = async (sql: Sql, id: string, leaseMs: number) =>
  (await sql`UPDATE privacy_requests SET lease_until = now() + make_interval(secs => ${leaseMs / 1000})
             WHERE id = ${id} AND owner = ${processId} AND status = 'running'`).count > 0

/**
 * Ends the request: its results, its status, and the subject's sealed value cleared, so the row that stays is the
 * audit record (hashes, counts, key id, times) with no personal data.
 */
export const finishRequest = async (
  sql: Sql | Tx, id: string, status: "completed" | "partial" | "failed", results: PrivacyRequestView["results"], error: string | null
) =>
  (await sql`
    UPDATE privacy_requests SET status = ${status}, results = ${jsonb(sql, results)}::jsonb, error = ${error},
      subject_sealed = NULL, completed_at = now(), owner = NULL, lease_until = NULL
    WHERE id = ${id} AND owner = ${processId} AND status = 'running'`).count > 0

/** Export documents past their time (and their links with them). */
export const dropExpiredExports = (sql: Sql) => sql`DELETE FROM privacy_exports WHERE expires_at <= now()`
