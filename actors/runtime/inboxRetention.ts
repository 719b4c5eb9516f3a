import { Effect, Schedule } from "effect"
import type { JetStreamManager } from "@nats-io/jetstream"
import type { Sql } from "../../core/db/Database.ts"
import { databaseFailure } from "../../core/db/DatabaseFailure.ts"
import { inBatches } from "../../core/db/inBatches.ts"
import { Metrics } from "../../core/observability/metrics.ts"
import { ingressStream } from "../../streams/subjects.ts"

/**
 * When an inbox row may go. The inbox answers an envelope that arrives a second time; an envelope can arrive again only
 * (1) while its message is still in the ingress stream (not acked: redelivered after the ack wait, or to a partition's
 * next owner, however long an outage lasts: `max_deliver` is unlimited), or (2) when its id is published again:
 * - by an outbox row not yet deleted (the relay deletes a row once its messages are published, and the sweep
 *   republishes what a crash left), or
 * - by a publisher's own retry of one publish (the ingress's client, seconds), which the stream acknowledges as a
 *   duplicate within its duplicate window (10 minutes, streams/topology.ts).
 * A client's retry of a request never reuses an envelope id (each request gets a new one; Idempotency-Key replays are
 * answered at the edge from `idempotency_keys`, kept 24 h), so the inbox serves no client retry.
 *
 * So a row may go once it is older than the retention window (at least the duplicate window covers (2)'s second case)
 * and older than every deployment's floor: the oldest message still in its ingress stream (minus a clock-skew margin,
 * the stream's clock not being PostgreSQL's) and its oldest outbox row still present. An envelope still pending was
 * published after that floor and applied later still; an outbox row's messages are applied after the row committed.
 * A floor measured earlier stays a lower bound later (what arrives later is newer); a deployment that stops measuring
 * keeps its last floor, which holds every sweep back until the stream's age limit (7 days) has removed anything it
 * could still deliver.
 */
export interface InboxFloor {
  readonly floorAt: number
  readonly measuredAt: number
}

/** The ingress stream's age limit: after it, nothing a silent deployment measured can still be delivered. */
export const FLOOR_LIFE_MS = 7 * 24 * 3600 * 1000
/** How far the stream's clock may be ahead of PostgreSQL's. */
export const CLOCK_SKEW_MS = 60_000
/** Rows per statement: no delete holds locks on more. */
export const SWEEP_BATCH = 5_000

/** The instant before which inbox rows may be removed, as of `now`. */
export const inboxCutoff = (now: number, retentionMs: number, floors: ReadonlyArray<InboxFloor>): number =>
  floors.reduce((cut, f) => (now - f.measuredAt > FLOOR_LIFE_MS ? cut : Math.min(cut, f.floorAt)), now - retentionMs)

/** A deployment's floor as of `now`: its oldest pending ingress message (stream clock) and oldest outbox row. */
export const measuredFloor = (now: number, oldestPending: number | undefined, oldestOutboxRow: number | undefined): number =>
  Math.min(now, oldestPending === undefined ? now : oldestPending - CLOCK_SKEW_MS, oldestOutboxRow ?? now)

/** The oldest message in the namespace's ingress stream (its publish time), or undefined when it holds none. */
const oldestPending = async (jsm: JetStreamManager, namespace: string): Promise<number | undefined> => {
  const { state } = await jsm.streams.info(ingressStream(namespace))
  return state.messages === 0 ? undefined : Date.parse(state.first_ts)
}

export interface InboxRetentionOptions {
  readonly sql: Sql
  readonly jsm: JetStreamManager
  readonly namespace: string
  readonly retentionMs: number
}

/**
 * One sweep: measures this deployment's floor (when the stream answers; otherwise its last floor stands), then removes
 * inbox rows older than the cutoff and outbox rows an earlier release marked published instead of deleting, both in
 * bounded batches (SKIP LOCKED: the workers of a deployment sweep side by side). Times from PostgreSQL's clock, the
 * one `processed_at` and `created_at` were written by; the stream's only through its floor.
 */
export const sweepInboxOnce = async (o: InboxRetentionOptions) => {
  const pending = await oldestPending(o.jsm, o.namespace).then((t) => ({ t }), () => undefined)
  const [clock] = await o.sql`
    SELECT (extract(epoch FROM now()) * 1000)::float8 AS now,
           (SELECT extract(epoch FROM min(created_at)) * 1000 FROM outbox WHERE published_at IS NULL)::float8 AS oldest`
  const now = clock!.now as number
  if (pending !== undefined) {
    const floor = measuredFloor(now, pending.t, (clock!.oldest as number | null) ?? undefined)
    await o.sql`
      INSERT INTO inbox_floors (namespace, floor_at, measured_at) VALUES (${o.namespace}, to_timestamp(${floor / 1000}), to_timestamp(${now / 1000}))
      ON CONFLICT (namespace) DO UPDATE SET floor_at = excluded.floor_at, measured_at = excluded.measured_at`
  }
  const floors = await o.sql`
    SELECT namespace, (extract(epoch FROM floor_at) * 1000)::float8 AS f, (extract(epoch FROM measured_at) * 1000)::float8 AS m FROM inbox_floors`
  // Never measured (the stream has not answered since the deployment first ran): nothing is known to be safe to remove.
  if (!floors.some((r) => r.namespace === o.namespace)) return { inbox: 0, outbox: 0, cutoff: undefined, floor_measured: false }
  const cutoff = new Date(inboxCutoff(now, o.retentionMs, floors.map((r) => ({ floorAt: r.f as number, measuredAt: r.m as number }))))
  const inbox = await inBatches(SWEEP_BATCH, () => o.sql`
    DELETE FROM inbox WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM inbox WHERE processed_at < ${cutoff} ORDER BY processed_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED))`)
  const outbox = await inBatches(SWEEP_BATCH, () => o.sql`
    DELETE FROM outbox WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM outbox WHERE published_at IS NOT NULL LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED))`)
  return { inbox, outbox, cutoff, floor_measured: pending !== undefined }
}

/** Every 30 s for as long as the worker runs; a failed sweep is logged and the next one tries again. */
export const inboxRetention = (o: InboxRetentionOptions) =>
  Effect.tryPromise({ try: () => sweepInboxOnce(o), catch: databaseFailure }).pipe(
    Effect.tap((r) =>
      Effect.sync(() => {
        Metrics.retained.inc({ table: "inbox" }, r.inbox)
        Metrics.retained.inc({ table: "outbox" }, r.outbox)
      })
    ),
    Effect.catch((e) => Effect.logWarning("inbox retention sweep failed").pipe(Effect.annotateLogs({ error: String(e) }))),
    Effect.withSpan("InboxRetention.sweep"),
    Effect.repeat(Schedule.spaced("30 seconds"))
  )
