import { Context, Effect, Layer } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database, jsonb, type Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { processId } from "../../core/processIdentity.ts"
import { CdpReservationRequest } from "../../schemas/cdp.ts"
import { batchItems } from "../http/answers.ts"
import { makeSubmitCdpReservation } from "./reservations.ts"

/**
 * Items taken per lease renewal, all in flight at once: each goes through the actors as one request of
 * /cdp/reservations would, and many in flight let the actors apply them in large waves.
 */
const CHUNK = 500
const IN_FLIGHT = 500
/** Attempts of an item that keeps failing for the platform's reason (not its data) before it is recorded failed. */
const MAX_TRANSIENT_ATTEMPTS = 5

interface Job { readonly id: string; readonly tenant_id: string; readonly sandbox: boolean }

/**
 * Takes one job of this deployment whose lease is free (queued, or running with a lapsed lease: its worker died),
 * SKIP LOCKED so two workers never take the same one at once.
 */
const claim = async (sql: Sql, namespace: string, leaseMs: number): Promise<Job | undefined> => {
  const [job] = await sql<Array<Job>>`
    UPDATE cdp_batches b SET owner = ${processId}, lease_until = now() + make_interval(secs => ${leaseMs / 1000}),
      status = 'running', started_at = coalesce(b.started_at, now())
    WHERE b.id = (SELECT id FROM cdp_batches WHERE status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < now())
                    AND (namespace = ${namespace} OR namespace IS NULL)
                  ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING b.id, b.tenant_id, b.sandbox`
  return job
}

/** Extends the lease while this worker still holds it; false once another took the job over. */
const renew = async (sql: Sql, id: string, leaseMs: number) =>
  (await sql`UPDATE cdp_batches SET lease_until = now() + make_interval(secs => ${leaseMs / 1000})
             WHERE id = ${id} AND owner = ${processId} AND status = 'running'`).count > 0

/**
 * Processes bulk reservation jobs in the background, on every worker. The job and its items live in PostgreSQL: a
 * worker holds a job by a lease it renews after every chunk; a worker that dies lets the lease lapse and another takes
 * over the items still without an outcome. An item applied twice (done, then its outcome not yet written when the
 * worker died) is the same reservation upserted again, which the reservation actor answers as an unchanged resend
 * (no second booking event) and the visitor actor's checkout link as the first one; its outcome is written once
 * (only where none is recorded).
 */
export class CdpBulkRunner extends Context.Service<CdpBulkRunner, { readonly runOnce: Effect.Effect<boolean> }>()("app/cdp/CdpBulkRunner") {
  static readonly layer = Layer.effect(CdpBulkRunner, Effect.gen(function*() {
    const { sql } = yield* Database
    const config = yield* AppConfig
    const submit = yield* makeSubmitCdpReservation
    const item = batchItems(CdpReservationRequest)
    const leaseMs = Math.max(3_000, 3 * config.leaseTtlMs)
    const attempts = new Map<string, number>()

    const chunk = Effect.fn("CdpBulk.chunk")(function*(job: Job) {
      const pending = yield* Effect.promise(() => sql`
        SELECT idx, payload FROM cdp_batch_items WHERE batch_id = ${job.id} AND outcome IS NULL ORDER BY idx LIMIT ${CHUNK}`)
      if (pending.length === 0) return false
      const scope = { tenant_id: job.tenant_id, sandbox: job.sandbox }
      const answers = yield* Effect.forEach(pending, (p) => item((r) => submit(scope, r))(p.payload), { concurrency: IN_FLIGHT })
      const outcomes = pending.flatMap((p, n): Array<{ idx: number; outcome: string; error: unknown }> => {
        const a = answers[n]!
        if (a.success) return [{ idx: p.idx as number, outcome: "succeeded", error: null }]
        const key = `${job.id}:${p.idx}`
        const tries = (attempts.get(key) ?? 0) + 1
        attempts.set(key, tries)
        if (a.status >= 500 && tries < MAX_TRANSIENT_ATTEMPTS) return []
        attempts.delete(key)
        return [{ idx: p.idx as number, outcome: "failed", error: a.error }]
      })
      const held = yield* Effect.promise(() => sql.begin(async (tx) => {
        const [mine] = await tx`SELECT 1 FROM cdp_batches WHERE id = ${job.id} AND owner = ${processId} FOR UPDATE`
        if (mine === undefined) return false
        await tx`
          UPDATE cdp_batch_items i SET outcome = o.outcome, error = o.error
          FROM jsonb_to_recordset(${jsonb(tx, outcomes)}::jsonb) AS o(idx int, outcome text, error jsonb)
          WHERE i.batch_id = ${job.id} AND i.idx = o.idx AND i.outcome IS NULL`
        return true
      }))
      if (outcomes.length < pending.length) yield* Effect.sleep(1_000) // platform trouble: give it a moment
      return held && (yield* Effect.promise(() => renew(sql, job.id, leaseMs)))
    })

    const finish = (job: Job) => Effect.promise(() => sql`
      UPDATE cdp_batches SET status = 'completed', completed_at = now(), owner = NULL, lease_until = NULL
      WHERE id = ${job.id} AND owner = ${processId}
        AND NOT EXISTS (SELECT 1 FROM cdp_batch_items WHERE batch_id = ${job.id} AND outcome IS NULL)`)

    /** Claims a job and works it to the end (or until its lease is lost); false when no job was waiting. */
    const runOnce: Effect.Effect<boolean> = Effect.gen(function*() {
      const job = yield* Effect.promise(() => claim(sql, config.namespace, leaseMs))
      if (job === undefined) return false
      while (yield* chunk(job)) { /* next chunk */ }
      yield* finish(job)
      return true
    }).pipe(Effect.catchCause((cause) => Effect.sync(() => {
      log("warn", "cdp bulk job run failed; its lease will lapse and a worker takes it over", { error: errorText(cause) })
      return false
    })))

    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(runOnce, (worked) => (worked ? Effect.void : Effect.sleep(500)))))
    return CdpBulkRunner.of({ runOnce })
  }))
}
