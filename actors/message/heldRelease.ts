import { runTransaction, type Sql } from "../../core/db/Database.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import { insertOutboxRows } from "../runtime/OutboxRelay.ts"
import { deliverCommand } from "./events.ts"

/**
 * Releases messages held by quiet hours whose `not_before` is at most `leadMs` after `now` (the worker's Clock): each
 * gets its deliver command in the outbox, in the transaction that marks it released, so a message is released once
 * however many workers sweep (SKIP LOCKED) and whatever crashes. Released a sweep's interval early, the command is
 * then held to the instant by the deliverer's claim (`holdMs`). Only this deployment's messages: the commands go to
 * its own streams. A held message settled meanwhile (its broadcast cancelled) is released without a command.
 */
export const releaseHeldMessages = async (sql: Sql, namespace: string, now: Date, leadMs: number): Promise<Array<OutboxMessage>> =>
  runTransaction(sql, async (tx) => {
    const rows = await tx<Array<{ id: string; tenant_id: string; sandbox: boolean; channel: "email" | "whatsapp"; status: string }>>`
      WITH due AS (
        SELECT id FROM messages
        WHERE hold_namespace = ${namespace} AND not_before <= ${new Date(now.getTime() + leadMs)}
        ORDER BY not_before LIMIT 500 FOR UPDATE SKIP LOCKED
      )
      UPDATE messages m SET hold_namespace = NULL, updated_at = now()
      FROM due WHERE m.id = due.id
      RETURNING m.id, m.tenant_id, m.sandbox, m.channel, m.status`
    const queued = rows.filter((r) => r.status === "queued")
    if (queued.length === 0) return []
    const subject = (kind: "cmd", name: string) => outboxSubject(namespace, kind, name)
    return insertOutboxRows(tx, queued.map((r) => {
      const command = deliverCommand(subject, { tenant_id: r.tenant_id, sandbox: r.sandbox }, r)
      // An outbox row's id is a UUID (and the Nats-Msg-Id): derived from the command's, as a told message's is.
      return { ...command, id: deterministicId(command.id), tenant_id: r.tenant_id }
    }))
  })
