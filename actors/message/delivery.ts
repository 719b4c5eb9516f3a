import { readEmailChannel, readWhatsAppChannel, senderFor } from "../../core/channel/repository.ts"
import type { SendBudget } from "./sendBudget.ts"
import type { Tx } from "../../core/db/Database.ts"
import { hashesParameter } from "../../core/privacy/hashParameter.ts"
import { contactIdentifiers, type Identifier } from "../../core/privacy/identifier.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { insertOutboxRows } from "../runtime/OutboxRelay.ts"
import { loadContactSummaries } from "../shared/identity.ts"
import { messageEvent, type MessageEventType } from "./events.ts"
import { MESSAGE_EVENT_COLUMNS, type MessageRow, suppress } from "./repository.ts"
import type { SendFailure } from "./SendFailure.ts"

// The deliverer's SQL: claiming a queued message for one attempt (recorded BEFORE the provider is called) and
// recording the attempt's outcome with the webhook it announces. Each is one short transaction under the tenant's
// row-level security; the provider call happens between them, outside any transaction.

export interface QueuedMessage {
  readonly id: string
  readonly contact_id: string
  readonly channel: "email" | "whatsapp"
  readonly category: string
  readonly to_address: string
  readonly hotel_id: string | null
  readonly template_name: string | null
  readonly template_language: string | null
  readonly template_parameters: ReadonlyArray<string> | null
  readonly subject: string | null
  readonly body_text: string | null
  readonly body_html: string | null
  readonly attempts: number
}

export type Claim =
  | { readonly kind: "done" }
  /** Not now: the tenant's send rate is used up, or an earlier attempt's outcome is still being reconciled. */
  | { readonly kind: "later"; readonly delayMs: number }
  | { readonly kind: "missing_channel" }
  | {
    readonly kind: "send"
    readonly message: QueuedMessage
    readonly email?: { readonly from_address: string; readonly from_name: string | null; readonly reply_to: string | null }
    readonly whatsapp?: { readonly phone_number_id: string; readonly access_token: string }
    /** A previous attempt left no outcome (its worker died): this one repeats it. */
    readonly repeat: boolean
  }

/**
 * The longest a held message's command waits before it is looked at again. A held message's command is written when
 * its hold (almost) ends (heldRelease.ts), so this bounds only what a clock differing between workers costs.
 */
export const MAX_HOLD_MS = 15 * 60_000

/** How long a message held until `notBefore` still waits at `now` (ms, bounded by MAX_HOLD_MS); 0 when it may leave. */
export const holdMs = (notBefore: Date | null, now: number): number =>
  notBefore === null ? 0 : Math.min(MAX_HOLD_MS, Math.max(0, notBefore.getTime() - now))

/**
 * Whether a broadcast message's broadcast was cancelled since the message was queued (one held by quiet hours, or
 * waiting for the send rate): such a message has not reached a provider, and does not after the cancel.
 */
const broadcastCancelled = async (tx: Tx, scope: TenantScope, broadcastId: string): Promise<boolean> => {
  const [b] = await tx<Array<{ status: string }>>`SELECT status FROM broadcasts
    WHERE id = ${broadcastId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return b?.status === "cancelled"
}

/**
 * Settles a queued message as skipped, as a send decided now would be: `cancelled` (its broadcast was cancelled),
 * `subject_suppressed` (a privacy request suppressed its recipient since it was queued).
 */
const skipQueued = async (tx: Tx, scope: TenantScope, id: string, reason: "cancelled" | "subject_suppressed") => {
  await tx`UPDATE messages SET status = 'skipped', skip_reason = ${reason}, hold_namespace = NULL, updated_at = now()
    WHERE id = ${id} AND status = 'queued'`
  await history(tx, scope, id, "skipped", true, reason)
}

/** Whether a privacy request suppressed any of these keyed hashes (the recipient's address and contact identifiers). */
const subjectSuppressed = async (tx: Tx, scope: TenantScope, hashes: ReadonlyArray<Buffer>): Promise<boolean> =>
  (await tx`SELECT 1 FROM privacy_suppressions WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
    AND id_hash = ANY(${hashesParameter(tx, hashes)}) LIMIT 1`).length > 0

export interface ClaimOptions {
  /** The deliverer's Clock time (ms): a message held by quiet hours is not taken before its `not_before`. */
  readonly now: number
  readonly reconcileMs: number
  /** Longer than any attempt can run: an attempt stamped earlier has ended, whatever its outcome. */
  readonly attemptDeadlineMs: number
  readonly defaultRatePerMinute: number
  readonly key: Buffer
  /** The tenant's per-minute send budget, shared by the workers (sendBudget.ts). */
  readonly budget: SendBudget
  /** The privacy key's hash of an identifier in the message's tenant (privacy suppressions hold only hashes). */
  readonly hash: (identifier: Identifier) => Buffer
}

/**
 * Takes a queued message for one attempt. A message that is no longer queued (sent, failed, settled by a status
 * webhook) is done. A WhatsApp attempt whose outcome is unknown waits `reconcileMs` for a status carrying our id
 * before it is repeated; an email one is repeated at once (same Message-ID). The tenant's per-minute send budget is
 * taken here (shared across workers, in blocks); the attempt is counted and stamped before the transaction commits.
 */
export const claim = async (tx: Tx, scope: TenantScope, messageId: string, o: ClaimOptions): Promise<Claim> => {
  const [m] = await tx<Array<QueuedMessage & {
    status: string; attempt_started_at: Date | null; not_before: Date | null; broadcast_id: string | null; now: Date
    contact_email: string | null; contact_phone: string | null
  }>>`
    SELECT id, contact_id, channel, category, to_address, hotel_id, template_name, template_language, template_parameters,
      subject, body_text, body_html, attempts, status, attempt_started_at, not_before, broadcast_id, now() AS now,
      (SELECT c.email FROM contacts c WHERE c.id = m.contact_id) AS contact_email,
      (SELECT c.phone FROM contacts c WHERE c.id = m.contact_id) AS contact_phone
    FROM messages m WHERE id = ${messageId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} FOR UPDATE OF m`
  if (!m || m.status !== "queued") return { kind: "done" }
  // Only before any attempt: one already started may have reached the provider, and its outcome is still owed.
  if (m.broadcast_id !== null && m.attempt_started_at === null && await broadcastCancelled(tx, scope, m.broadcast_id)) {
    await skipQueued(tx, scope, m.id, "cancelled")
    return { kind: "done" }
  }
  const held = holdMs(m.not_before, o.now)
  if (held > 0) return { kind: "later", delayMs: held }
  const repeat = m.attempt_started_at !== null
  if (repeat) {
    // An attempt may still be running somewhere until its deadline has passed; a WhatsApp one waits longer, for a
    // status webhook to settle it.
    const wait = m.channel === "whatsapp" ? Math.max(o.reconcileMs, o.attemptDeadlineMs) : o.attemptDeadlineMs
    const waited = m.now.getTime() - m.attempt_started_at!.getTime()
    if (waited < wait) return { kind: "later", delayMs: wait - waited }
  }
  // Checked again at the last moment before the provider (issue 26): a recipient suppressed since the message was
  // queued is never reached. Pipelined with the channel's reads (one round trip).
  const recipient: Identifier = { kind: m.channel === "email" ? "email" : "phone", value: m.to_address }
  const hashes = [recipient, ...contactIdentifiers({ email: m.contact_email, phone: m.contact_phone })].map(o.hash)
  const [suppressed, email, whatsapp] = await Promise.all([
    subjectSuppressed(tx, scope, hashes),
    m.channel === "email" ? readEmailChannel(tx, scope) : null,
    m.channel === "whatsapp" ? readWhatsAppChannel(tx, scope, o.key) : null
  ])
  if (suppressed) {
    await skipQueued(tx, scope, m.id, "subject_suppressed")
    return { kind: "done" }
  }
  if (email === null && whatsapp === null) return { kind: "missing_channel" }
  const limit = (email ?? whatsapp)!.send_rate_per_minute ?? o.defaultRatePerMinute
  const bucket = `send:${scope.tenant_id}:${scope.sandbox}:${m.channel}`
  if (!(await o.budget.take(tx, bucket, limit, o.now))) return { kind: "later", delayMs: 60_000 - (m.now.getTime() % 60_000) + Math.floor(Math.random() * 1_000) }
  await tx`UPDATE messages SET attempts = attempts + 1, attempt_started_at = now(), updated_at = now() WHERE id = ${m.id}`
  const { not_before: _notBefore, broadcast_id: _broadcastId, contact_email: _email, contact_phone: _phone, ...queued } = m
  const message: QueuedMessage = { ...queued, attempts: queued.attempts + 1 }
  return {
    kind: "send",
    message,
    repeat,
    ...(email === null ? {} : { email: senderFor(email, m.hotel_id) }),
    ...(whatsapp === null ? {} : { whatsapp: { phone_number_id: whatsapp.phone_number_id, access_token: whatsapp.access_token } })
  }
}

const announce = async (
  tx: Tx, scope: TenantScope, subject: (kind: "cmd", name: string) => string, type: MessageEventType, row: MessageRow, occurredAt: string
) => {
  const summaries = await loadContactSummaries(tx, [row.contact_id])
  const event = messageEvent(subject, scope, type, row, summaries.get(row.contact_id), occurredAt)
  const [written] = await insertOutboxRows(tx, [{ ...event, tenant_id: scope.tenant_id }])
  return written!
}

const history = (tx: Tx, scope: TenantScope, id: string, status: string, applied: boolean, errorCode: string | null) => tx`
  INSERT INTO message_statuses (message_id, tenant_id, sandbox, status, error_code, occurred_at, applied)
  VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${status}, ${errorCode}, now(), ${applied})`

/** The provider took the message: `sent` (unless a status webhook already moved it on), its id kept, the attempt closed. */
export const recordSent = async (
  tx: Tx, scope: TenantScope, subject: (kind: "cmd", name: string) => string, id: string, providerId: string, occurredAt: string
) => {
  const [row] = await tx.unsafe<Array<MessageRow & { was_queued: boolean }>>(
    `WITH o AS (SELECT id, status = 'queued' AS was_queued FROM messages WHERE id = $1 FOR UPDATE)
     UPDATE messages m SET status = CASE WHEN o.was_queued THEN 'sent' ELSE m.status END,
       sent_at = CASE WHEN m.status = 'failed' THEN m.sent_at ELSE coalesce(m.sent_at, now()) END, provider_message_id = coalesce(m.provider_message_id, nullif($2, '')),
       attempt_started_at = NULL, updated_at = now(),
       -- a retried send clears the last attempt's error; a status that already settled it (failed) keeps its own
       error_code = CASE WHEN o.was_queued THEN NULL ELSE m.error_code END,
       error_message = CASE WHEN o.was_queued THEN NULL ELSE m.error_message END
     FROM o WHERE m.id = o.id
     RETURNING ${MESSAGE_EVENT_COLUMNS.split(",").map((c) => `m.${c.trim()}`).join(", ")}, o.was_queued`,
    [id, providerId])
  if (!row) return []
  await history(tx, scope, id, "sent", row.was_queued, null)
  return row.was_queued ? [await announce(tx, scope, subject, "message.sent", row, occurredAt)] : []
}

/** Given up for good: `failed` with the provider's reason (a hard bounce also suppresses the message's address). */
export const recordFailed = async (
  tx: Tx, scope: TenantScope, subject: (kind: "cmd", name: string) => string, messageId: string, failure: SendFailure, occurredAt: string
) => {
  const [row] = await tx.unsafe<Array<MessageRow & { to_address: string | null }>>(
    `UPDATE messages SET status = 'failed', failed_at = now(), error_code = $2, error_message = $3, attempt_started_at = NULL,
       updated_at = now()
     WHERE id = $1 AND status IN ('queued', 'sent') RETURNING ${MESSAGE_EVENT_COLUMNS}, to_address`,
    [messageId, failure.code, failure.message.slice(0, 1000)])
  if (!row) return []
  const { to_address, ...message } = row
  await history(tx, scope, messageId, "failed", true, failure.code)
  if (failure.hardBounce && to_address !== null) {
    await suppress(tx, scope, message.channel, to_address, `${message.channel === "email" ? "smtp" : "whatsapp_error"}_${failure.code}`, messageId)
  }
  return [await announce(tx, scope, subject, "message.failed", message, occurredAt)]
}

/** The attempt failed but another may succeed: the attempt is closed (so the next is not mistaken for a repeat). */
export const recordRetry = (tx: Tx, id: string, failure: SendFailure, keepAttemptOpen: boolean) => tx`
  UPDATE messages SET error_code = ${failure.code}, error_message = ${failure.message.slice(0, 1000)}, updated_at = now(),
    attempt_started_at = CASE WHEN ${keepAttemptOpen} THEN attempt_started_at ELSE NULL END
  WHERE id = ${id} AND status = 'queued'`

