import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream"
import { Clock, Data, Effect, Schedule } from "effect"
import type { DatabaseShape } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { eraseSubject } from "../../core/privacy/erase.ts"
import type { PrivacyKeyShape } from "../../core/privacy/PrivacyKey.ts"
import type { Subject } from "../../core/privacy/store.ts"
import { drained, streamMarks } from "../../streams/drain.ts"
import { eraseStreamMessages } from "../../streams/eraseMessages.ts"
import { namesSubject } from "../../streams/namesSubject.ts"
import { natsFailure, type NatsFailure } from "../../streams/natsErrors.ts"
import { ingressStream } from "../../streams/subjects.ts"
import { inTenantOf } from "../http/inTenant.ts"
import { suppress } from "./requestStore.ts"
import { type HeldRequest, type Progress, renewLease, saveStep, type Step } from "./runnerRows.ts"
import { SUPPRESSION_CACHE_MAX_MS } from "./Suppressions.ts"

/** Another worker took the request over (this one's lease lapsed): this one stops, the other goes on. */
export class TakenOver extends Data.TaggedError("TakenOver")<{ readonly request_id: string }> {}

/** Rows per erase batch (each its own transaction). */
const BATCH = 500
/**
 * From the request's 202 until no ingress replica can still publish for the subject: the longest a suppression cache
 * may hold an old view, and a margin for a request that passed the check just before and is still publishing.
 */
export const SETTLE_MS = SUPPRESSION_CACHE_MAX_MS + 5_000
/**
 * How long the drain waits for consumers other than the actors' (webhook deliveries to a partner that is down, sends
 * retrying at a provider can hold theirs for hours): past it only the ingress stream is waited for, and what those
 * consumers still hold on the subject is erased from their streams instead (and their senders check the suppression).
 */
const PATIENCE_MS = 60_000

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
 * The erasure's steps from wherever the request's saved step says, up to (not including) the webhooks:
 * 1. wait until every ingress replica's suppression cache holds the suppression;
 * 2. drain: every consumer has consumed up to each stream's last sequence (nothing published before the suppression
 *    can still re-create a row after the deletion), and 3. settle: once more, since an envelope consumed in (2) may
 *    have published an event or command after those marks;
 * 4. erase every store in batches (identifiers a feed added meanwhile suppressed first);
 * 5. erase the retained stream messages naming the subject, up to fresh marks;
 * 6. final: the stores once more, for whatever a consumer held past the drain's patience wrote meanwhile.
 * Each step is saved before the next starts, so a worker's death repeats at most one.
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
  const marks = nats(() => streamMarks(c.jsm, c.namespace))
  const held = c.db.attempt((sql) => renewLease(sql, r.id, c.leaseMs)).pipe(
    Effect.flatMap((ok) => (ok ? Effect.void : Effect.fail(new TakenOver({ request_id: r.id })))))
  /** Polled, the lease renewed on each poll: consumers catch up at their own pace (a partition without an owner waits for one). */
  const drain = Effect.fn("PrivacyRunner.drain")(function*() {
    const since = yield* Clock.currentTimeMillis
    const ingress = ingressStream(c.namespace)
    yield* nats(() => drained(c.jsm, c.namespace, progress.marks ?? {})).pipe(
      Effect.flatMap((state) => Effect.map(Clock.currentTimeMillis, (now) =>
        state.drained || (now - since > PATIENCE_MS && state.behind.every((b) => b.stream !== ingress)))),
      Effect.tap((done) => (done ? Effect.void : held)),
      Effect.repeat({ schedule: Schedule.spaced("250 millis"), until: (done) => done })
    )
  })
  const eraseStores = Effect.fn("PrivacyRunner.eraseStores")(function*(next: Step) {
    const erased = yield* c.db.attempt((sql) => eraseSubject(sql, subject, BATCH))
    yield* save(next, { ...progress, counts: add(progress.counts, erased) })
  })

  if (step === "wait") {
    const now = yield* Clock.currentTimeMillis
    yield* Effect.sleep(Math.max(0, r.created_at.getTime() + SETTLE_MS - now))
    yield* save("drain", { ...progress, marks: yield* marks })
  }
  if (step === "drain") {
    yield* drain()
    yield* save("settle", { ...progress, marks: yield* marks })
  }
  if (step === "settle") {
    yield* drain()
    yield* save("erase", progress)
  }
  if (step === "erase") {
    // Identifiers of contacts a feed created before the suppression held are suppressed too, then everything goes.
    const hashes = subject.identifiers.map((i) => ({ hash: c.key.hash(subject.scope.tenant_id, i), kind: i.kind }))
    yield* inTenantOf(c.db)(subject.scope, (tx) => suppress(tx, subject.scope, r.id, c.key.keyId, hashes))
    yield* save("erase", progress, subject.contactIds)
    yield* eraseStores("streams")
    yield* save("streams", { ...progress, marks: yield* marks })
  }
  if (step === "streams") {
    const matcher = namesSubject({ scope: subject.scope, contactIds: subject.contactIds, identifiers: subject.identifiers })
    const outcome = yield* nats(() => eraseStreamMessages(c, c.namespace, progress.marks ?? {}, matcher)).pipe(
      Effect.map((erased) => ({ erased, failed: [] as Array<string> })),
      Effect.catch((e: NatsFailure) =>
        Effect.logWarning("privacy erasure could not erase retained stream messages; the request ends partial", { request_id: r.id, error: e.message })
          .pipe(Effect.as({ erased: [], failed: ["streams"] }))))
    yield* save("final", { ...progress, counts: add(progress.counts, outcome.erased), failed_stores: outcome.failed })
  }
  if (step === "final") yield* eraseStores("notify")
  return progress
}) as (c: ErasureContext, r: HeldRequest, subject: Subject) => Effect.Effect<Progress, Failure>
