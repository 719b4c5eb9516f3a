import { PREPARED, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { insertOutboxRows } from "../runtime/OutboxRelay.ts"
import { loadContactSummaries } from "../shared/identity.ts"
import { messageEvent, type MessageEventType } from "./events.ts"
import { MESSAGE_EVENT_COLUMNS, type MessageRow, suppress } from "./repository.ts"
import type { SendFailure } from "./SendFailure.ts"

// The deliverer's SQL after the provider answered: each attempt's outcome with the webhook it announces, for every
// attempt of a batch in the one transaction of its tenant (the claim, delivery.ts, is the transaction before).

type Subject = (kind: "cmd", name: string) => string

/** The webhooks announcing these rows' changes, written to the outbox (one contact read for them all). */
const announce = async (tx: Tx, scope: TenantScope, subject: Subject, changes: ReadonlyArray<{ readonly type: MessageEventType; readonly row: MessageRow }>, occurredAt: string) => {
  if (changes.length === 0) return []
  const summaries = await loadContactSummaries(tx, [...new Set(changes.map((c) => c.row.contact_id))])
  const events = changes.map((c) => ({ ...messageEvent(subject, scope, c.type, c.row, summaries.get(c.row.contact_id), occurredAt), tenant_id: scope.tenant_id }))
  return insertOutboxRows(tx, events)
}

const history = (tx: Tx, scope: TenantScope, id: string, status: string, applied: boolean, errorCode: string | null) => tx`
  INSERT INTO message_statuses (message_id, tenant_id, sandbox, status, error_code, occurred_at, applied)
  VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${status}, ${errorCode}, now(), ${applied})`

const RETURNED = MESSAGE_EVENT_COLUMNS.split(",").map((c) => `m.${c.trim()}`).join(", ")

/**
 * The provider took these messages: each `sent` (unless a status webhook already moved it on), its provider id kept,
 * its attempt closed, its history row written, all in one statement (rows locked in id order, as the claim locks
 * them); `message.sent` announced for each that was still queued.
 */
export const recordSent = async (
  tx: Tx, scope: TenantScope, subject: Subject, sent: ReadonlyArray<{ readonly id: string; readonly providerId: string }>, occurredAt: string
) => {
  if (sent.length === 0) return []
  const rows = await tx.unsafe<Array<MessageRow & { was_queued: boolean }>>(
    `WITH o AS (
       -- the messages by primary key (ANY), never joined to the input (a join could be hashed over the whole table on
       -- young statistics; ADR 0032); each one's provider id found by its position in the input
       SELECT m.id, m.status = 'queued' AS was_queued, ($2::text[])[array_position($1::uuid[], m.id)] AS provider_id
       FROM messages m WHERE m.id = ANY($1::uuid[])
       ORDER BY m.id FOR UPDATE
     ), u AS (
       UPDATE messages m SET status = CASE WHEN o.was_queued THEN 'sent' ELSE m.status END,
         sent_at = CASE WHEN m.status = 'failed' THEN m.sent_at ELSE coalesce(m.sent_at, now()) END,
         provider_message_id = coalesce(m.provider_message_id, nullif(o.provider_id, '')),
         attempt_started_at = NULL, updated_at = now(),
         -- a retried send clears the last attempt's error; a status that already settled it (failed) keeps its own
         error_code = CASE WHEN o.was_queued THEN NULL ELSE m.error_code END,
         error_message = CASE WHEN o.was_queued THEN NULL ELSE m.error_message END
       FROM o WHERE m.id = o.id AND m.id = ANY($1::uuid[])
       RETURNING ${RETURNED}, o.was_queued
     ), h AS (
       INSERT INTO message_statuses (message_id, tenant_id, sandbox, status, error_code, occurred_at, applied)
       SELECT id, $3::uuid, $4::boolean, 'sent', NULL, now(), was_queued FROM u
     )
     SELECT * FROM u`,
    [sent.map((s) => s.id), sent.map((s) => s.providerId), scope.tenant_id, scope.sandbox], PREPARED)
  return announce(tx, scope, subject, rows.filter((r) => r.was_queued).map(({ was_queued: _, ...row }) => ({ type: "message.sent" as const, row })), occurredAt)
}

/** Given up for good: `failed` with the provider's reason (a hard bounce also suppresses the message's address). */
export const recordFailed = async (tx: Tx, scope: TenantScope, subject: Subject, messageId: string, failure: SendFailure, occurredAt: string) => {
  const [row] = await tx.unsafe<Array<MessageRow & { to_address: string | null }>>(
    `UPDATE messages SET status = 'failed', failed_at = now(), error_code = $2, error_message = $3, attempt_started_at = NULL,
       updated_at = now()
     WHERE id = $1 AND status IN ('queued', 'sent') RETURNING ${MESSAGE_EVENT_COLUMNS}, to_address`,
    [messageId, failure.code, failure.message.slice(0, 1000)], PREPARED)
  if (!row) return []
  const { to_address, ...message } = row
  await history(tx, scope, messageId, "failed", true, failure.code)
  if (failure.hardBounce && to_address !== null) {
    await suppress(tx, scope, message.channel, to_address, `${message.channel === "email" ? "smtp" : "whatsapp_error"}_${failure.code}`, messageId)
  }
  return announce(tx, scope, subject, [{ type: "message.failed", row: message }], occurredAt)
}

/** The attempt failed but another may succeed: the attempt is closed (so the next is not mistaken for a repeat). */
export const recordRetry = (tx: Tx, id: string, failure: SendFailure, keepAttemptOpen: boolean) => tx`
  UPDATE messages SET error_code = ${failure.code}, error_message = ${failure.message.slice(0, 1000)}, updated_at = now(),
    attempt_started_at = CASE WHEN ${keepAttemptOpen} THEN attempt_started_at ELSE NULL END
  WHERE id = ${id} AND status = 'queued'`
