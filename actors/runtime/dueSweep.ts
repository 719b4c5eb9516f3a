import { runTransaction, type Sql, type Tx } from "../../core/db/Database.ts"
import type { Told } from "../../streams/tell.ts"
import type { OutboxMessage } from "./Actor.ts"
import { insertOutboxRows, toldRow } from "./OutboxRelay.ts"

/** What a sweep of due work needs: the database, this deployment's streams, and the relay's publish. */
export interface SweepDeps {
  readonly sql: Sql
  readonly namespace: string
  readonly partitions: number
  /** Publishes committed outbox rows (the worker's relay sweeps up anything this misses). */
  readonly publish: (messages: ReadonlyArray<OutboxMessage>) => Promise<void>
}

/**
 * One round of a sweep of due work (journey waits, auction closes, broadcast steps): `claim` marks the due rows as
 * published and returns them (with `FOR UPDATE SKIP LOCKED`, so workers sweeping together take each row once), and each
 * becomes the message `tell` builds, written to the outbox in that same transaction; published after commit. The
 * message's id is deterministic, so a row claimed again after a crash publishes the same message.
 */
export const publishDue = async <R extends { readonly tenant_id: string }>(
  deps: SweepDeps, claim: (tx: Tx) => Promise<ReadonlyArray<R>>, tell: (row: R) => Told
): Promise<number> => {
  const messages = await runTransaction(deps.sql, async (tx) => {
    const due = await claim(tx)
    if (due.length === 0) return []
    const out = due.map((d) => toldRow(tell(d), d.tenant_id))
    await insertOutboxRows(tx, out)
    return out
  })
  if (messages.length > 0) await deps.publish(messages)
  return messages.length
}
