import type { JetStreamClient } from "@nats-io/jetstream"
import { Context, Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database, type Sql, type Tx } from "../../core/db/Database.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import { errorText } from "../../core/observability/log.ts"
import { encode } from "../../streams/envelope.ts"
import { Nats } from "../../streams/Nats.ts"
import { OutboxBatches, type StoredMessageSchema } from "../../streams/topics.ts"
import type { Told } from "../../streams/tell.ts"
import type { OutboxMessage } from "./Actor.ts"
import { withWebhookSequences } from "./webhookSequences.ts"

/**
 * The outbox row format this release writes (the column's default, migration 031) and the newest its relay publishes:
 * rows a newer release wrote are left to that release's relay during a rolling upgrade.
 */
export const OUTBOX_VERSION = 1

/** How often the relay deletes the rows it published, and publishes what the immediate path left behind. */
const FLUSH_EVERY = "100 millis"
const SWEEP_EVERY = "2 seconds"
/** A row younger than this is still the immediate path's: more than the flush interval, or fresh rows go twice. */
const SWEEP_GRACE_MS = 2_000

/** A message as the outbox keeps it: its id (the Nats-Msg-Id), subject and encoded payload (streams/topics.ts). */
export type StoredMessage = typeof StoredMessageSchema.Type

/** An outbox row: one message, or (a batch row) every message of a group's tenant phase. */
export interface OutboxRow {
  readonly id: string
  readonly messages: ReadonlyArray<StoredMessage>
}

/**
 * Writes messages made outside an actor (a sweep, a scan) to the outbox in the caller's transaction, one row each, to
 * be published after its commit (`publishMessages`, and the relay's sweep for anything a crash left behind); returns the
 * messages as written.
 */
export const insertOutboxRows = async <M extends OutboxMessage & { readonly tenant_id: string }>(tx: Tx, messages: ReadonlyArray<M>): Promise<Array<M>> => {
  if (messages.length === 0) return []
  // Webhook commands get their per-object sequence in this transaction: publish what this returns, not the input.
  const written = await withWebhookSequences(tx, messages)
  const rows = written.map((m) => ({ id: m.id, tenant_id: m.tenant_id, subject: m.subject, payload: Buffer.from(encode(m.payload)) }))
  await tx`INSERT INTO outbox ${tx(rows, "id", "tenant_id", "subject", "payload")}`
  return written
}

/** A message told to an actor, as an outbox row: its row id (a UUID) derived from the envelope id, so a rewrite is the same row. */
export const toldRow = (t: Told, tenantId: string): OutboxMessage & { readonly tenant_id: string } =>
  ({ id: deterministicId(t.id), subject: t.subject, payload: t.payload, tenant_id: tenantId })

export interface OutboxRelayShape {
  /** Publishes committed rows now. Never fails: what could not be published is left to the sweep. */
  readonly publish: (rows: ReadonlyArray<OutboxRow>) => Effect.Effect<void>
  /** Rows of one message each (written one per message, as the sweeps and scans do). */
  readonly publishMessages: (messages: ReadonlyArray<OutboxMessage>) => Effect.Effect<void>
  /** Publishes this deployment's rows older than `graceMs` still present (the immediate path failed or crashed). */
  readonly sweep: (graceMs?: number) => Effect.Effect<number>
  /** Deletes the rows published since the last flush. */
  readonly flush: Effect.Effect<void>
}

/**
 * Publishes outbox rows to JetStream, each message with Nats-Msg-Id = its id, so a second publish (after a crash
 * between publish and the row's removal) is deduplicated by the stream, then deletes them: the outbox stream is the
 * log of what was published, the table only holds what is not yet. One per process, shared by every layer that writes
 * outbox rows; its layer flushes every 100 ms and sweeps every 2 s on `Schedule`s, and flushes and sweeps once more
 * when it closes, after every layer that publishes through it.
 */
export class OutboxRelay extends Context.Service<OutboxRelay, OutboxRelayShape>()("app/actors/OutboxRelay") {
  static readonly layer = Layer.effect(OutboxRelay, Effect.gen(function*() {
    const { namespace } = yield* AppConfig
    const { sql } = yield* Database
    const { js } = yield* Nats
    const relay = makeOutboxRelay(sql, js, namespace)
    yield* Effect.forkScoped(Effect.repeat(relay.flush, Schedule.spaced(FLUSH_EVERY)))
    yield* Effect.forkScoped(Effect.repeat(relay.sweep(), Schedule.spaced(SWEEP_EVERY)))
    yield* Effect.addFinalizer(() => Effect.andThen(relay.flush, relay.sweep(0)))
    return relay
  }))
}

/**
 * The relay's `publishMessages` for the Promise code of sweeps and scans (they publish after their own commit), run
 * with the services of the layer that asks for it (its logger among them).
 */
export const messagePublisher = Effect.gen(function*() {
  const relay = yield* OutboxRelay
  const run = Effect.runPromiseWith(yield* Effect.context<never>())
  return (messages: ReadonlyArray<OutboxMessage>): Promise<void> => run(relay.publishMessages(messages))
})

/** The relay's operations, unscheduled (the layer schedules them; tests call them directly). */
export const makeOutboxRelay = (sql: Sql, js: JetStreamClient, namespace: string): OutboxRelayShape => {
  /** Published rows not yet deleted: deleted together, one statement per flush instead of one per message. */
  let published: Array<string> = []
  let sweeping = false
  const send = (messages: ReadonlyArray<StoredMessage>) =>
    Effect.tryPromise(() => Promise.all(messages.map((m) => js.publish(m.subject, m.data, { msgID: m.id }))))

  const publish = (rows: ReadonlyArray<OutboxRow>) =>
    send(rows.flatMap((r) => r.messages)).pipe(
      Effect.andThen(Effect.sync(() => {
        for (const r of rows) published.push(r.id)
      })),
      Effect.catch((e) => Effect.logWarning("outbox publish deferred to sweep").pipe(Effect.annotateLogs({ error: errorText(e.cause), rows: rows.length }))),
      Effect.withSpan("OutboxRelay.publish")
    )

  const flush = Effect.suspend(() => {
    if (published.length === 0) return Effect.void
    const ids = published
    published = []
    return Effect.tryPromise(() => sql`DELETE FROM outbox WHERE id = ANY(${ids}::uuid[])`).pipe(
      Effect.asVoid,
      Effect.catch((e) => Effect.andThen(
        Effect.sync(() => published.push(...ids)),
        Effect.logWarning("outbox row removal deferred").pipe(Effect.annotateLogs({ error: errorText(e.cause), count: ids.length }))
      ))
    )
  }).pipe(Effect.withSpan("OutboxRelay.flush"))

  /**
   * Another deployment sharing the database sweeps its own rows: a row for streams this one does not have would fail
   * every sweep, and with it every row in the same batch (rows from before batch rows named their namespace are
   * anyone's). One sweep at a time: the scheduled one and the closing one may meet.
   */
  const sweep = (graceMs = SWEEP_GRACE_MS) => Effect.suspend(() => {
    if (sweeping) return Effect.succeed(0)
    sweeping = true
    return Effect.tryPromise(() => sql.begin(async (tx) => {
      const rows = await tx`
        SELECT id, subject, payload, batch FROM outbox
        WHERE published_at IS NULL AND created_at < now() - make_interval(secs => ${graceMs / 1000})
          AND (subject = '' OR left(subject, ${namespace.length + 1}) = ${`${namespace}.`})
          AND protocol_version <= ${OUTBOX_VERSION}
        ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED`
      if (rows.length === 0) return 0
      const messages = rows.flatMap((r): ReadonlyArray<StoredMessage> =>
        r.batch ? OutboxBatches.decode(r.payload as Uint8Array) : [{ id: r.id as string, subject: r.subject as string, data: r.payload as Uint8Array }])
      await Promise.all(messages.map((m) => js.publish(m.subject, m.data, { msgID: m.id })))
      await tx`DELETE FROM outbox WHERE id = ANY(${rows.map((r) => r.id as string)}::uuid[])`
      return rows.length
    })).pipe(
      Effect.catch((e) => Effect.as(Effect.logWarning("outbox sweep failed").pipe(Effect.annotateLogs({ error: errorText(e.cause) })), 0)),
      Effect.ensuring(Effect.sync(() => (sweeping = false)))
    )
  }).pipe(Effect.withSpan("OutboxRelay.sweep"))

  return OutboxRelay.of({
    publish,
    publishMessages: (messages) => publish(messages.map((m) => ({ id: m.id, messages: [{ id: m.id, subject: m.subject, data: encode(m.payload) }] }))),
    sweep,
    flush
  })
}
