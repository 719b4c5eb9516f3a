import { Clock, Data, Effect, Schedule } from "effect"
import type { DatabaseShape } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { eraseSubject } from "../../core/privacy/erase.ts"
import type { PrivacyKeyShape } from "../../core/privacy/PrivacyKey.ts"
import type { Subject } from "../../core/privacy/store.ts"
import { actAsTenant } from "../../core/db/Database.ts"
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream"
import { natsFailure, type NatsFailure } from "../../streams/natsErrors.ts"
import { drained, eraseStreamMessages, namesSubject, streamMarks } from "../../streams/privacyStreams.ts"
import { suppress } from "./requestStore.ts"
import { type HeldRequest, type Progress, renewLease, saveStep, type Step } from "./runnerRows.ts"
import { SUPPRESSION_SETTLE_MS } from "./Suppressions.ts"

/** Another worker took the request over (this one's lease lapsed): this one stops, the other goes on. */
export class TakenOver extends Data.TaggedError("TakenOver")<{ readonly request_id: string }> {}

/** Rows per erase batch (each its own transaction). */
const BATCH = 500

export interface ErasureContext {
  readonly db: DatabaseShape
  readonly key: PrivacyKeyShape
  readonly jsm: JetStreamManager
  readonly js: JetStreamClient
  readonly namespace: string
  readonly leaseMs: number
}

type Failure = DatabaseFailure | NatsFailure | TakenOver

const nats = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: natsFailure })

const add = (counts: Progress["counts"], erased: ReadonlyArray<{ store: string; action: string; count: number }>) => {
  const next = { ...counts }
  for (const e of erased) next[e.store] = { action: e.action, count: (next[e.store]?.count ?? 0) + e.count }
  return next
}

/**
 * The erasure's steps from wherever the request's saved step says, up to (not including) the webhooks: wait until
 * every ingress replica's suppression cache holds the suppression, record each stream's last sequence, wait until
 * every consumer has consumed up to it (nothing published before the suppression can re-create a row after the
 * deletion), suppress any identifier a feed added meanwhile, delete store by store in batches, then delete the
 * retained stream messages naming the subject. Each step is saved before the next starts.
 */
export const eraseSteps = Effect.fn("PrivacyRunner.eraseSteps")(function*(c: ErasureContext, r: HeldRequest, subject: Subject) {
  let step: Step = r.step ?? "wait"
  let progress: Progress = r.progress
  const save = (next: Step, p: Progress, contactIds?: ReadonlyArray<string>) =>
    c.db.attempt((sql) => saveStep(sql, r.id, c.leaseMs, next, p, contactIds === undefined ? {} : { contact_ids: contactIds })).pipe(
      Effect.flatMap((held): Effect.Effect<void, TakenOver> => (held ? Effect.sync(() => {
        step = next
        progress = p
      }) : Effect.fail(new TakenOver({ request_id: r.id })))))

  if (step === "wait") {
    const now = yield* Clock.currentTimeMillis
    yield* Effect.sleep(Math.max(0, r.created_at.getTime() + SUPPRESSION_SETTLE_MS - now))
    yield* save("drain", { ...progress, marks: yield* nats(() => streamMarks(c.jsm, c.namespace)) })
  }
  if (step === "drain") {
    const marks = progress.marks ?? {}
    const held = c.db.attempt((sql) => renewLease(sql, r.id, c.leaseMs)).pipe(
      Effect.flatMap((ok) => (ok ? Effect.void : Effect.fail(new TakenOver({ request_id: r.id })))))
    // Polled, the lease renewed on each poll: consumers catch up at their own pace (a partition without an owner
    // waits for one), and the erasure waits with them rather than delete while old envelopes are still to come.
    yield* nats(() => drained(c.jsm, c.namespace, marks)).pipe(
      Effect.tap((done) => (done ? Effect.void : held)),
      Effect.repeat({ schedule: Schedule.spaced("250 millis"), until: (done) => done })
    )
    yield* save("erase", progress)
  }
  if (step === "erase") {
    // Identifiers of contacts a feed created before the suppression held are suppressed too, then everything goes.
    const hashes = subject.identifiers.map((i) => ({ hash: c.key.hash(subject.scope.tenant_id, i), kind: i.kind }))
    yield* c.db.attemptTransaction(async (tx) => {
      await actAsTenant(tx, subject.scope.tenant_id)
      return suppress(tx, subject.scope, r.id, c.key.keyId, hashes)
    })
    yield* save("erase", progress, subject.contactIds)
    const erased = yield* c.db.attempt((sql) => eraseSubject(sql, subject, BATCH))
    yield* save("streams", { ...progress, counts: add(progress.counts, erased) })
  }
  if (step === "streams") {
    const erased = yield* nats(() =>
      eraseStreamMessages(c.jsm, c.js, c.namespace, progress.marks ?? {}, namesSubject(subject.contactIds, subject.identifiers)))
      .pipe(Effect.map((e) => ({ erased: e, failed: [] as Array<string> })), Effect.catch((e: NatsFailure) =>
        Effect.logWarning("privacy erasure could not erase retained stream messages; the request ends partial", { request_id: r.id, error: e.message })
          .pipe(Effect.as({ erased: [], failed: ["streams"] }))))
    yield* save("notify", { ...progress, counts: add(progress.counts, erased.erased), failed_stores: erased.failed })
  }
  return progress
}) as (c: ErasureContext, r: HeldRequest, subject: Subject) => Effect.Effect<Progress, Failure>
