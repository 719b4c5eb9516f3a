import { Clock, Context, Effect, Layer, Schedule } from "effect"
import { gzipSync } from "node:zlib"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { exportSubject } from "../../core/privacy/export.ts"
import type { Identifier } from "../../core/privacy/identifier.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { type NamedSubject, resolveSubject } from "../../core/privacy/resolve.ts"
import type { Subject } from "../../core/privacy/store.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { Nats } from "../../streams/Nats.ts"
import { inTenantOf } from "../http/inTenant.ts"
import { writeContactDeleted } from "../webhook/contactDeleted.ts"
import { eraseSteps, SETTLE_MS } from "./erasureSteps.ts"
import { claimRequest, dropExpiredExports, finishRequest, type HeldRequest } from "./runnerRows.ts"

/** How long an export's document is kept (and downloadable). */
const EXPORT_KEPT_SECONDS = 7 * 24 * 3600
/** Failed runs of one request before it ends `failed` (each run resumes where the last saved step left it). */
const MAX_FAILURES = 5
/**
 * Requests one worker carries out at once. Most of an erasure is waiting for consumers to drain; several at once let a
 * controller's batch of requests through at several a second instead of one after another.
 */
const RUNNERS = 4

/** The subject as the request named it, unsealed (only this row's id opens it). */
const namedOf = (open: (id: string, sealed: Buffer) => string, r: HeldRequest): NamedSubject => {
  const value = open(r.id, r.subject_sealed!)
  const match = /^(email|phone):(.*)$/s.exec(value)
  return match === null ? { kind: "contact_id", value } : { kind: match[1] as Identifier["kind"], value: match[2]! }
}

/**
 * Carries out exports and erasures on the workers (a suppression and its lifting are carried out by the request
 * itself). A request is held by a lease on its row; each step is saved, so a worker's death repeats at most the step
 * it was in, on another worker. Ends with the audit row: status, counts per store, no personal data.
 */
export class PrivacyRunner extends Context.Service<PrivacyRunner, { readonly runOnce: Effect.Effect<boolean> }>()("app/privacy/PrivacyRunner") {
  static readonly layer = Layer.effect(PrivacyRunner, Effect.gen(function*() {
    const db = yield* Database
    const config = yield* AppConfig
    const key = yield* PrivacyKey
    const { jsm, js } = yield* Nats
    const leaseMs = Math.max(10_000, 3 * config.leaseTtlMs)
    const context = { db, key, jsm, js, namespace: config.namespace, leaseMs }

    const inTenant = inTenantOf(db)

    /** The subject now: the contacts it reaches today plus those recorded before (erased ones are gone from today's). */
    const subjectNow = Effect.fn("PrivacyRunner.subject")(function*(r: HeldRequest, scope: TenantScope) {
      const named = namedOf(key.open, r)
      const now = yield* inTenant(scope, (tx) => resolveSubject(tx, scope, named))
      return { scope, contactIds: [...new Set([...r.contact_ids, ...now.contactIds])].sort(), identifiers: now.identifiers } satisfies Subject
    })

    const runExport = Effect.fn("PrivacyRunner.export")(function*(r: HeldRequest, subject: Subject) {
      const document = { ...(yield* db.attempt((sql) => exportSubject(sql, subject))), request_id: r.id }
      const results = Object.entries(document.stores).map(([store, rows]) => ({ store, action: "exported", count: rows.length }))
      yield* inTenant(subject.scope, async (tx) => tx`
        INSERT INTO privacy_exports (request_id, tenant_id, sandbox, document, expires_at)
        VALUES (${r.id}, ${subject.scope.tenant_id}, ${subject.scope.sandbox}, ${gzipSync(JSON.stringify(document))},
          now() + make_interval(secs => ${EXPORT_KEPT_SECONDS}))
        ON CONFLICT (request_id) DO NOTHING`)
      yield* db.attempt((sql) => sql`UPDATE privacy_requests SET contact_ids = ${subject.contactIds as Array<string>}::uuid[] WHERE id = ${r.id}`)
      yield* db.attempt((sql) => finishRequest(sql, r.id, "completed", results, null))
    })

    /**
     * The erasure's steps, then `contact.deleted` for each contact written in the transaction that ends the request
     * (a resumed run writes none twice), published at once; the relay's sweep publishes what this could not.
     */
    const runErase = Effect.fn("PrivacyRunner.erase")(function*(r: HeldRequest, subject: Subject) {
      const progress = yield* eraseSteps(context, r, subject)
      const results = Object.entries(progress.counts ?? {}).map(([store, c]) => ({ store, action: c.action, count: c.count }))
      results.push({ store: "webhooks", action: "notified", count: subject.contactIds.length })
      const failed = progress.failed_stores ?? []
      const now = new Date(yield* Clock.currentTimeMillis)
      const written = yield* inTenant(subject.scope, async (tx) => {
        const commands = await writeContactDeleted(tx, config.namespace, subject.scope, subject.contactIds, r.id, now)
        await finishRequest(tx, r.id, failed.length === 0 ? "completed" : "partial", results,
          failed.length === 0 ? null : `could not erase: ${failed.join(", ")}`)
        return commands
      })
      yield* Effect.forEach(written, (w) => Effect.tryPromise(() => js.publish(w.subject, w.data, { msgID: w.id }))
        .pipe(Effect.andThen(db.attempt((sql) => sql`DELETE FROM outbox WHERE id = ${w.id}`)), Effect.ignore), { discard: true })
    })

    /** A failed run: counted; the lease lapses and a worker takes the request over, until it has failed too often. */
    const failed = (r: HeldRequest) => (cause: unknown) => {
      const failures = (r.progress.failures ?? 0) + 1
      return Effect.logWarning("privacy request run failed", { request_id: r.id, failures, cause: String(cause) }).pipe(
        Effect.andThen(db.attempt(async (sql) => {
          if (failures >= MAX_FAILURES) await finishRequest(sql, r.id, "failed", [], `gave up after ${failures} failed runs`)
          else await sql`UPDATE privacy_requests SET progress = progress || ${sql.json({ failures })}::jsonb WHERE id = ${r.id}`
        })),
        Effect.ignore
      )
    }

    /** Claims a request and carries it out to the end; false when none was waiting. */
    const runOnce: Effect.Effect<boolean> = Effect.gen(function*() {
      const r = yield* db.attempt((sql) => claimRequest(sql, config.namespace, leaseMs, SETTLE_MS))
      if (r === undefined) return false
      const scope = { tenant_id: r.tenant_id, sandbox: r.sandbox }
      yield* subjectNow(r, scope).pipe(
        Effect.flatMap((subject) => (r.type === "export" ? runExport(r, subject) : runErase(r, subject))),
        Effect.catchCause(failed(r))
      )
      return true
    }).pipe(
      Effect.withSpan("PrivacyRunner.runOnce"),
      Effect.catchCause((cause) => Effect.logWarning("privacy runner pass failed", { cause: String(cause) }).pipe(Effect.as(false)))
    )

    const runner = Effect.forever(Effect.flatMap(runOnce, (worked) => (worked ? Effect.void : Effect.sleep("500 millis"))))
    yield* Effect.forkScoped(Effect.forEach(Array.from({ length: RUNNERS }), () => runner, { concurrency: "unbounded", discard: true }))
    // Export documents past their 7 days go, and their links with them.
    yield* Effect.forkScoped(Effect.repeat(db.attempt(dropExpiredExports).pipe(Effect.ignore), Schedule.spaced("1 minute")))
    return PrivacyRunner.of({ runOnce })
  }))
}
