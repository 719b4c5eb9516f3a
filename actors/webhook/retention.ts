import { Clock, Effect, Schedule } from "effect"
import { databaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { Sql } from "../../core/db/Database.ts"
import { inBatches } from "../../core/db/inBatches.ts"
import { purgeIdleSequences } from "../../core/webhook/sequence.ts"

const DAY_MS = 86_400_000
/** Emitted bodies and replays: as long as the delivery log, the window a replay may reach back. */
export const EMITTED_RETENTION_DAYS = 14
/** Counter rows untouched this long go (a later event restarts above the clock: core/webhook/sequence.ts). */
const SEQUENCE_IDLE_DAYS = 30
const BATCH = 5_000

/** Emitted bodies and replays older than 14 days, counter rows idle for 30 days, as of `now`. */
export const purgeWebhookHistory = async (sql: Sql, now: Date) => {
  const emittedBefore = new Date(now.getTime() - EMITTED_RETENTION_DAYS * DAY_MS)
  const idleBefore = new Date(now.getTime() - SEQUENCE_IDLE_DAYS * DAY_MS)
  return {
    events: await inBatches(BATCH, () => sql`
      DELETE FROM webhook_events WHERE (subscription_id, event_id) IN (
        SELECT subscription_id, event_id FROM webhook_events WHERE emitted_at < ${emittedBefore} LIMIT ${BATCH})`),
    replays: await inBatches(BATCH, () => sql`
      DELETE FROM webhook_replays WHERE id IN (SELECT id FROM webhook_replays WHERE created_at < ${emittedBefore} LIMIT ${BATCH})`),
    sequences: await inBatches(BATCH, () => sql.begin((tx) => purgeIdleSequences(tx, idleBefore, BATCH)))
  }
}

/** The sweep, hourly in every worker (idempotent), the time from the Clock; a failed run waits for the next. */
export const webhookRetentionSweep = (sql: Sql) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const removed = yield* Effect.tryPromise({ try: () => purgeWebhookHistory(sql, new Date(now)), catch: databaseFailure })
    if (removed.events + removed.replays + removed.sequences > 0) yield* Effect.logInfo("webhook history purged").pipe(Effect.annotateLogs(removed))
  }).pipe(
    Effect.catch((e) => Effect.logWarning("webhook history purge failed").pipe(Effect.annotateLogs({ error: String(e) }))),
    Effect.withSpan("WebhookRetention.sweep"),
    Effect.repeat(Schedule.spaced("1 hour"))
  )
