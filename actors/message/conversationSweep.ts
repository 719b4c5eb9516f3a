import { runTransaction, type Sql } from "../../core/db/Database.ts"
import { outboxSubject } from "../../streams/subjects.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import { loadContactSummaries } from "../shared/identity.ts"
import { insertOutboxRows } from "../runtime/OutboxRelay.ts"
import { conversationEvent } from "./events.ts"
import type { ConversationRow } from "./repository.ts"

/**
 * Closes conversations with no message for `idleMs` (24 h: the end of WhatsApp's customer-service window) as of `now`
 * (the worker's Clock, which also dates the close), a batch at a time across tenants, each with its
 * `conversation.closed` webhook in the same transaction. Only this deployment's conversations: the webhooks go to its
 * own streams. Rows another worker is closing are skipped (SKIP LOCKED), so any number of workers can sweep at once; a
 * message arriving at the same moment either keeps the conversation open or finds it closed and opens a new one.
 */
export const closeIdleConversations = async (sql: Sql, idleMs: number, namespace: string, now: Date): Promise<Array<OutboxMessage>> =>
  runTransaction(sql, async (tx) => {
    const rows = await tx<Array<ConversationRow & { tenant_id: string; sandbox: boolean }>>`
      WITH idle AS (
        SELECT id FROM conversations
        WHERE status = 'open' AND last_message_at < ${new Date(now.getTime() - idleMs)}
          AND (namespace IS NULL OR namespace = ${namespace})
        ORDER BY last_message_at LIMIT 500 FOR UPDATE SKIP LOCKED
      )
      UPDATE conversations c SET status = 'closed', closed_at = ${now}, closed_reason = 'inactivity'
      FROM idle WHERE c.id = idle.id
      RETURNING c.id, c.tenant_id, c.sandbox, c.contact_id, c.channel, c.status, c.opened_by, c.opened_at, c.last_message_at,
        c.last_inbound_at, c.closed_at, c.closed_reason, false AS is_new`
    if (rows.length === 0) return []
    const summaries = await loadContactSummaries(tx, rows.map((r) => r.contact_id))
    const subject = (kind: "cmd", name: string) => outboxSubject(namespace, kind, name)
    return insertOutboxRows(tx, rows.map((r) => ({
      tenant_id: r.tenant_id,
      ...conversationEvent(subject, { tenant_id: r.tenant_id, sandbox: r.sandbox }, "conversation.closed", r, summaries.get(r.contact_id), new Date(r.closed_at!).toISOString())
    })))
  })
