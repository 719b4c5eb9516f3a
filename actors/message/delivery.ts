import { readEmailChannel, readWhatsAppChannel, senderFor } from "../../core/channel/repository.ts"
import type { SendBudget } from "./sendBudget.ts"
import type { Tx } from "../../core/db/Database.ts"
import { hashesParameter } from "../../core/privacy/hashParameter.ts"
import { contactIdentifiers, type Identifier } from "../../core/privacy/identifier.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

// The deliverer's claim: queued messages taken for one attempt each, the attempt recorded BEFORE the provider is
// called, a batch of one tenant's messages in one short transaction under its row-level security, with a statement per
// step for the whole batch rather than per message (outcomes.ts records what the provider answered, in the next).

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
  | { readonly kind: "missing_channel"; readonly channel: "email" | "whatsapp" }
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
 * Settles queued messages as skipped, as a send decided now would be: `cancelled` (its broadcast was cancelled since
 * the message was queued and no attempt started, so nothing reached a provider), `subject_suppressed` (a privacy
 * request suppressed its recipient since it was queued).
 */
const skipQueued = async (tx: Tx, scope: TenantScope, skips: ReadonlyArray<{ readonly id: string; readonly reason: "cancelled" | "subject_suppressed" }>) => {
  if (skips.length === 0) return
  await tx`
    WITH u AS (
      UPDATE messages m SET status = 'skipped', skip_reason = x.reason, hold_namespace = NULL, updated_at = now()
      FROM unnest(${skips.map((s) => s.id)}::uuid[], ${skips.map((s) => s.reason)}::text[]) AS x(id, reason)
      WHERE m.id = x.id AND m.id = ANY(${skips.map((s) => s.id)}::uuid[]) AND m.status = 'queued'
      RETURNING m.id, x.reason
    )
    INSERT INTO message_statuses (message_id, tenant_id, sandbox, status, error_code, occurred_at, applied)
    SELECT id, ${scope.tenant_id}::uuid, ${scope.sandbox}::boolean, 'skipped', reason, now(), true FROM u`
}

/** Which of these keyed hashes (recipients' addresses and contact identifiers) a privacy request suppressed. */
const suppressedHashes = async (tx: Tx, scope: TenantScope, hashes: ReadonlyArray<Buffer>): Promise<Set<string>> => {
  if (hashes.length === 0) return new Set()
  const rows = await tx<Array<{ id_hash: Buffer }>>`SELECT DISTINCT id_hash FROM privacy_suppressions
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND id_hash = ANY(${hashesParameter(tx, hashes)})`
  return new Set(rows.map((r) => r.id_hash.toString("hex")))
}

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

type ClaimedRow = QueuedMessage & {
  status: string; attempt_started_at: Date | null; not_before: Date | null; broadcast_id: string | null; broadcast_status: string | null
  now: Date; contact_email: string | null; contact_phone: string | null
}

/**
 * Takes queued messages for one attempt each. A message that is no longer queued (sent, failed, settled by a status
 * webhook) is done. A WhatsApp attempt whose outcome is unknown waits `reconcileMs` for a status carrying our id
 * before it is repeated; an email one is repeated at once (same Message-ID). The tenant's per-minute send budget is
 * taken here (shared across workers, in blocks); each attempt is counted and stamped before the transaction commits.
 * The rows are locked in id order, so two batches sharing messages (a redelivered command) wait rather than deadlock.
 */
export const claimBatch = async (tx: Tx, scope: TenantScope, messageIds: ReadonlyArray<string>, o: ClaimOptions): Promise<Map<string, Claim>> => {
  const ids = [...new Set(messageIds)]
  const rows = await tx<Array<ClaimedRow>>`
    SELECT m.id, m.contact_id, m.channel, m.category, m.to_address, m.hotel_id, m.template_name, m.template_language,
      m.template_parameters, m.subject, m.body_text, m.body_html, m.attempts, m.status, m.attempt_started_at, m.not_before,
      m.broadcast_id, now() AS now,
      -- scalar subqueries: a primary-key probe each whatever the statistics (a join could be hashed; ADR 0032)
      (SELECT b.status FROM broadcasts b WHERE b.id = m.broadcast_id AND b.tenant_id = m.tenant_id AND b.sandbox = m.sandbox) AS broadcast_status,
      (SELECT c.email FROM contacts c WHERE c.id = m.contact_id) AS contact_email,
      (SELECT c.phone FROM contacts c WHERE c.id = m.contact_id) AS contact_phone
    FROM messages m
    WHERE m.id = ANY(${ids}::uuid[]) AND m.tenant_id = ${scope.tenant_id} AND m.sandbox = ${scope.sandbox}
    ORDER BY m.id FOR UPDATE`
  const claims = new Map<string, Claim>(ids.map((id) => [id, { kind: "done" }]))
  const skips: Array<{ id: string; reason: "cancelled" | "subject_suppressed" }> = []
  const open: Array<ClaimedRow> = []
  for (const m of rows) {
    if (m.status !== "queued") continue
    // Only before any attempt: one already started may have reached the provider, and its outcome is still owed.
    if (m.broadcast_id !== null && m.attempt_started_at === null && m.broadcast_status === "cancelled") {
      skips.push({ id: m.id, reason: "cancelled" })
      continue
    }
    const held = holdMs(m.not_before, o.now)
    if (held > 0) {
      claims.set(m.id, { kind: "later", delayMs: held })
      continue
    }
    if (m.attempt_started_at !== null) {
      // An attempt may still be running somewhere until its deadline has passed; a WhatsApp one waits longer, for a
      // status webhook to settle it.
      const wait = m.channel === "whatsapp" ? Math.max(o.reconcileMs, o.attemptDeadlineMs) : o.attemptDeadlineMs
      const waited = m.now.getTime() - m.attempt_started_at.getTime()
      if (waited < wait) {
        claims.set(m.id, { kind: "later", delayMs: wait - waited })
        continue
      }
    }
    open.push(m)
  }
  // Checked again at the last moment before the provider (issue 26): a recipient suppressed since the message was
  // queued is never reached. One statement for the batch's hashes, pipelined with the channels' reads.
  const hashesOf = new Map(open.map((m) => {
    const recipient: Identifier = { kind: m.channel === "email" ? "email" : "phone", value: m.to_address }
    return [m.id, [recipient, ...contactIdentifiers({ email: m.contact_email, phone: m.contact_phone })].map(o.hash)]
  }))
  const [suppressed, email, whatsapp] = await Promise.all([
    suppressedHashes(tx, scope, [...hashesOf.values()].flat()),
    open.some((m) => m.channel === "email") ? readEmailChannel(tx, scope) : null,
    open.some((m) => m.channel === "whatsapp") ? readWhatsAppChannel(tx, scope, o.key) : null
  ])
  const sendable: Array<ClaimedRow> = []
  for (const m of open) {
    if (hashesOf.get(m.id)!.some((h) => suppressed.has(h.toString("hex")))) skips.push({ id: m.id, reason: "subject_suppressed" })
    else if ((m.channel === "email" ? email : whatsapp) === null) claims.set(m.id, { kind: "missing_channel", channel: m.channel })
    else sendable.push(m)
  }
  // The tenant's send budget, one take per channel for the batch (see sendBudget.ts on why never more): the sends
  // granted go now, the rest when the next minute's budget opens.
  const stamped: Array<string> = []
  for (const [kind, channel] of [["email", email], ["whatsapp", whatsapp]] as const) {
    const wanting = sendable.filter((m) => m.channel === kind)
    if (channel === null || wanting.length === 0) continue
    const bucket = `send:${scope.tenant_id}:${scope.sandbox}:${kind}`
    const granted = await o.budget.take(tx, bucket, channel.send_rate_per_minute ?? o.defaultRatePerMinute, o.now, wanting.length)
    wanting.forEach((m, i) => {
      if (i >= granted) {
        claims.set(m.id, { kind: "later", delayMs: 60_000 - (m.now.getTime() % 60_000) + Math.floor(Math.random() * 1_000) })
        return
      }
      stamped.push(m.id)
      const { not_before: _notBefore, broadcast_id: _broadcastId, broadcast_status: _broadcastStatus, contact_email: _email, contact_phone: _phone, now: _now, status: _status, attempt_started_at, ...queued } = m
      claims.set(m.id, {
        kind: "send",
        message: { ...queued, attempts: queued.attempts + 1 },
        repeat: attempt_started_at !== null,
        ...(email === null || kind !== "email" ? {} : { email: senderFor(email, m.hotel_id) }),
        ...(whatsapp === null || kind !== "whatsapp" ? {} : { whatsapp: { phone_number_id: whatsapp.phone_number_id, access_token: whatsapp.access_token } })
      })
    })
  }
  await Promise.all([
    skipQueued(tx, scope, skips),
    stamped.length === 0 ? undefined : tx`UPDATE messages SET attempts = attempts + 1, attempt_started_at = now(), updated_at = now()
      WHERE id = ANY(${stamped}::uuid[])`
  ])
  return claims
}

/** One message's claim (claimBatch of one). */
export const claim = async (tx: Tx, scope: TenantScope, messageId: string, o: ClaimOptions): Promise<Claim> =>
  (await claimBatch(tx, scope, [messageId], o)).get(messageId)!
