import type { JetStreamClient } from "@nats-io/jetstream"
import type { Sql, Tx } from "../../core/db/Database.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { encode } from "../../streams/envelope.ts"
import { OutboxBatches, type StoredMessageSchema } from "../../streams/topics.ts"
import type { Told } from "../../streams/tell.ts"
import type { OutboxMessage } from "./Actor.ts"
import { withWebhookSequences } from "./webhookSequences.ts"

/**
 * The outbox row format this release writes (the column's default, migration 031) and the newest its relay publishes:
 * rows a newer release wrote are left to that release's relay during a rolling upgrade.
 */
export const OUTBOX_VERSION = 1

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

/**
 * Publishes outbox rows to JetStream, each message with Nats-Msg-Id = its id, so a second publish (after a crash
 * between publish and the row's removal) is deduplicated by the stream. The sweep republishes anything a crash left
 * behind.
 */
export class OutboxRelay {
  private readonly sql: Sql
  private readonly js: JetStreamClient
  private timer: NodeJS.Timeout | undefined
  private flushTimer: NodeJS.Timeout | undefined
  private sweeping = false
  /** Published rows not yet deleted: deleted together, one statement per flush instead of one per message. */
  private published: Array<string> = []

  constructor(sql: Sql, js: JetStreamClient) {
    this.sql = sql
    this.js = js
  }

  async publish(rows: ReadonlyArray<OutboxRow>): Promise<void> {
    try {
      await Promise.all(rows.flatMap((r) => r.messages.map((m) => this.js.publish(m.subject, m.data, { msgID: m.id }))))
      for (const r of rows) this.published.push(r.id)
    } catch (e) {
      log("warn", "outbox publish deferred to sweep", { error: errorText(e), rows: rows.length })
    }
  }

  /** Rows of one message each (written one per message, as the date scan does). */
  publishMessages(messages: ReadonlyArray<OutboxMessage>): Promise<void> {
    return this.publish(messages.map((m) => ({ id: m.id, messages: [{ id: m.id, subject: m.subject, data: encode(m.payload) }] })))
  }

  /**
   * Publishes this deployment's rows older than `graceMs` that are still unpublished (the immediate path failed or
   * crashed). Another deployment sharing the database sweeps its own: a row for streams this one does not have would
   * fail every sweep, and with it every row in the same batch (rows from before batch rows named their namespace are
   * anyone's).
   */
  async sweep(namespace: string, graceMs = 2_000): Promise<number> {
    if (this.sweeping) return 0
    this.sweeping = true
    try {
      return await this.sql.begin(async (tx) => {
        const rows = await tx`
          SELECT id, subject, payload, batch FROM outbox
          WHERE published_at IS NULL AND created_at < now() - make_interval(secs => ${graceMs / 1000})
            AND (subject = '' OR left(subject, ${namespace.length + 1}) = ${`${namespace}.`})
            AND protocol_version <= ${OUTBOX_VERSION}
          ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED`
        if (rows.length === 0) return 0
        // Grace must exceed the flush interval, or rows published a moment ago would be published again (harmless:
        // the stream deduplicates on the row id, but wasteful).
        const messages = rows.flatMap((r): ReadonlyArray<StoredMessage> =>
          r.batch ? OutboxBatches.decode(r.payload as Uint8Array) : [{ id: r.id as string, subject: r.subject as string, data: r.payload as Uint8Array }])
        await Promise.all(messages.map((m) => this.js.publish(m.subject, m.data, { msgID: m.id })))
        await tx`DELETE FROM outbox WHERE id = ANY(${rows.map((r) => r.id as string)}::uuid[])`
        return rows.length
      })
    } catch (e) {
      log("warn", "outbox sweep failed", { error: errorText(e) })
      return 0
    } finally {
      this.sweeping = false
    }
  }

  /**
   * Deletes the rows published since the last flush: the outbox stream is the log of what was published, the table
   * only holds what is not yet (a crash before the delete only means a republish, deduplicated by the stream within
   * its duplicate window and by the receiver's inbox after it: actors/runtime/inboxRetention.ts).
   */
  async flush(): Promise<void> {
    if (this.published.length === 0) return
    const ids = this.published
    this.published = []
    await this.sql`DELETE FROM outbox WHERE id = ANY(${ids}::uuid[])`.catch((e) => {
      this.published.push(...ids)
      log("warn", "outbox row removal deferred", { error: errorText(e), count: ids.length })
    })
  }

  start(namespace: string, intervalMs = 2_000): void {
    this.timer = setInterval(() => void this.sweep(namespace), intervalMs)
    this.timer.unref()
    this.flushTimer = setInterval(() => void this.flush(), 100)
    this.flushTimer.unref()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    if (this.flushTimer) clearInterval(this.flushTimer)
    await this.flush()
  }
}
