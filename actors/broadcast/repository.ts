import type { Tx } from "../../core/db/Database.ts"
import type { CustomFieldDef } from "../../core/segment/catalog.ts"
import { segmentWhere } from "../../core/segment/toSql.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { BroadcastContent, BroadcastStatus, QuietHours } from "../../schemas/broadcast.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"

// The broadcast actor's statements: its row, the snapshot and dispatch chunks over broadcast_recipients, and the
// outcome of its recipients read through their messages.

export interface BroadcastRow {
  readonly id: string
  readonly name: string
  readonly channel: "email" | "whatsapp"
  readonly category: "marketing" | "utility"
  readonly audience: { readonly segment_id?: string; readonly definition?: SegmentDefinition; readonly exclude_segment_ids?: ReadonlyArray<string> }
  readonly definition: SegmentDefinition | null
  readonly exclusions: ReadonlyArray<SegmentDefinition>
  readonly content: BroadcastContent
  readonly hotel_id: string | null
  readonly send_at: Date | null
  readonly send_at_local: string | null
  readonly recipient_local_time: boolean
  readonly rate_limit_per_minute: number | null
  readonly quiet_hours: QuietHours | null
  readonly send_deadline: Date | null
  readonly status: BroadcastStatus
  readonly phase: "snapshotting" | "dispatching" | "settling" | null
  readonly snapshot_cursor: string | null
  readonly step_seq: number
  readonly targeted: number | null
  readonly started_at: Date | null
  readonly sent_at: Date | null
  readonly completed_at: Date | null
}

/** The broadcast, its row locked until commit (an edit of a draft at the edge waits for it, and it for the edit). */
export const loadBroadcast = async (tx: Tx, scope: TenantScope, id: string): Promise<BroadcastRow | undefined> => {
  const [row] = await tx<Array<BroadcastRow>>`
    SELECT id, name, channel, category, audience, definition, exclusions, content, hotel_id, send_at,
      to_char(send_at_local, 'YYYY-MM-DD"T"HH24:MI:SS') AS send_at_local, recipient_local_time, rate_limit_per_minute,
      quiet_hours, send_deadline, status, phase, snapshot_cursor, step_seq, targeted, started_at, sent_at, completed_at
    FROM broadcasts WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} FOR UPDATE`
  return row
}

/** What a step or an action changes on the row; every change moves the step sequence on (older steps go stale). */
export interface RowChange {
  readonly status?: BroadcastStatus
  readonly status_reason?: string | null
  readonly phase?: "snapshotting" | "dispatching" | "settling" | null
  readonly definition?: SegmentDefinition
  readonly exclusions?: ReadonlyArray<SegmentDefinition>
  readonly snapshot_cursor?: string | null
  readonly targeted?: number
  readonly next_step_at: Date | null
  readonly started_at?: Date
  readonly sent_at?: Date
  readonly completed_at?: Date
  readonly cancelled_at?: Date
}

export const changeRow = async (tx: Tx, id: string, c: RowChange): Promise<number> => {
  const set: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(c)) if (v !== undefined) set[k] = k === "definition" || k === "exclusions" ? tx.json(v as never) : v
  const [row] = await tx<Array<{ step_seq: number }>>`
    UPDATE broadcasts SET ${tx(set as Record<string, never>)}, step_seq = step_seq + 1, updated_at = now()
    WHERE id = ${id} RETURNING step_seq`
  return row!.step_seq
}

export const SNAPSHOT_CHUNK = 5_000

/**
 * The next chunk of the audience into broadcast_recipients, keyset on the contact id past the saved cursor, the
 * cursor saved by the caller in the same transaction: a crash repeats the chunk whole or not at all, and the primary
 * key drops a contact already taken. Each recipient's zone (its latest stay's hotel, else the broadcast's hotel) is
 * taken when quiet hours or local-time sending need it.
 */
export const snapshotChunk = async (
  tx: Tx, scope: TenantScope, b: BroadcastRow, ctx: { readonly now: Date; readonly customFields: ReadonlyArray<CustomFieldDef> }
): Promise<{ readonly scanned: number; readonly last: string | null }> => {
  const matching = tx`c.tenant_id = ${scope.tenant_id} AND c.sandbox = ${scope.sandbox}
    AND (${b.snapshot_cursor}::uuid IS NULL OR c.id > ${b.snapshot_cursor}::uuid)
    AND (${segmentWhere(tx, b.definition!, ctx)})`
  const excluded = b.exclusions.map((d) => tx` AND NOT (${segmentWhere(tx, d, ctx)})`)
  const needsZone = b.quiet_hours !== null || b.recipient_local_time
  const [row] = await tx<Array<{ scanned: number; last: string | null }>>`
    WITH picked AS (
      SELECT c.id FROM contacts c WHERE ${matching} ${excluded.reduce((a, f) => tx`${a}${f}`, tx``)}
      ORDER BY c.id LIMIT ${SNAPSHOT_CHUNK}
    ), inserted AS (
      INSERT INTO broadcast_recipients (broadcast_id, contact_id, tenant_id, sandbox, status, time_zone)
      SELECT ${b.id}, p.id, ${scope.tenant_id}, ${scope.sandbox}, 'pending',
        ${needsZone
          ? tx`coalesce((SELECT h.timezone FROM reservation_guests rg JOIN reservations r ON r.id = rg.reservation_id
                JOIN hotels h ON h.id = r.hotel_id WHERE rg.contact_id = p.id ORDER BY r.check_in DESC LIMIT 1),
              (SELECT h.timezone FROM hotels h WHERE h.id = ${b.hotel_id}))`
          : tx`NULL`}
      FROM picked p
      ON CONFLICT (broadcast_id, contact_id) DO NOTHING
    )
    SELECT (SELECT count(*)::int FROM picked) AS scanned, (SELECT id::text FROM picked ORDER BY id DESC LIMIT 1) AS last`
  return row!
}

export const countRecipients = async (tx: Tx, id: string) =>
  (await tx<Array<{ n: number }>>`SELECT count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = ${id}`)[0]!.n

/** A recipient whose moment has come: every pending one, or with local-time sending, those whose local send time passed. */
const due = (tx: Tx, b: BroadcastRow, now: Date) =>
  b.recipient_local_time && b.send_at_local !== null
    ? tx`AND (${b.send_at_local}::timestamp AT TIME ZONE coalesce(r.time_zone, 'UTC')) <= ${now}`
    : tx``

export interface DueRecipient {
  readonly contact_id: string
  readonly time_zone: string | null
  readonly first_name: string | null
  readonly last_name: string | null
  readonly email: string | null
  readonly phone: string | null
  readonly language: string
}

/** Up to `limit` pending recipients due at `now`, in contact order, locked, with what their content renders from. */
export const pickDue = (tx: Tx, b: BroadcastRow, limit: number, now: Date) =>
  tx<Array<DueRecipient>>`
    SELECT r.contact_id::text AS contact_id, r.time_zone, c.first_name, c.last_name, c.email, c.phone, c.language
    FROM broadcast_recipients r JOIN contacts c ON c.id = r.contact_id
    WHERE r.broadcast_id = ${b.id} AND r.status = 'pending' ${due(tx, b, now)}
    ORDER BY r.contact_id LIMIT ${limit} FOR UPDATE OF r`

/** When the next pending recipient comes due (local-time sending), or null when none is pending. */
export const nextDue = async (tx: Tx, b: BroadcastRow): Promise<Date | null> => {
  const [row] = await tx<Array<{ at: Date | null }>>`
    SELECT min(${b.recipient_local_time && b.send_at_local !== null
      ? tx`${b.send_at_local}::timestamp AT TIME ZONE coalesce(time_zone, 'UTC')`
      : tx`now()`}) AS at
    FROM broadcast_recipients WHERE broadcast_id = ${b.id} AND status = 'pending'`
  return row?.at ?? null
}

/**
 * The chunk's recipients `queued` with their message ids, each found by its whole primary key from the arrays. The
 * broadcast's id rides along in each array row rather than standing as a condition of its own: its recipients were
 * written moments before (after the table's statistics were taken), so `broadcast_id = $id` alone is estimated at a row
 * or so and the planner then walks every recipient of the broadcast, matching each against the whole chunk (measured:
 * 8-10 s per chunk of 500 at 100,000 recipients). From the arrays it is one index probe per row whatever the statistics.
 */
export const markQueued = (tx: Tx, id: string, queued: ReadonlyArray<{ readonly contact_id: string; readonly message_id: string }>, now: Date) =>
  tx`UPDATE broadcast_recipients r SET status = 'queued', message_id = q.m::uuid, queued_at = ${now}
    FROM unnest(${queued.map((q) => q.contact_id)}::uuid[], ${queued.map((q) => q.message_id)}::text[],
      array_fill(${id}::uuid, ARRAY[${queued.length}::int])) AS q(c, m, b)
    WHERE r.broadcast_id = q.b AND r.contact_id = q.c`

export const markSkipped = (tx: Tx, id: string, contactIds: ReadonlyArray<string>, reason: string) =>
  contactIds.length === 0 ? Promise.resolve() : tx`UPDATE broadcast_recipients SET status = 'skipped', skip_reason = ${reason}
    WHERE broadcast_id = ${id} AND contact_id = ANY(${contactIds as Array<string>}::uuid[])`

/** Every recipient still pending is skipped for `reason` (a cancel, a deadline passed). */
export const skipPending = (tx: Tx, id: string, reason: string) =>
  tx`UPDATE broadcast_recipients SET status = 'skipped', skip_reason = ${reason} WHERE broadcast_id = ${id} AND status = 'pending'`

/** Recipients handed over whose message has no final answer yet (not recorded, or still queued at the sender). */
export const unanswered = async (tx: Tx, id: string) =>
  (await tx<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM broadcast_recipients r LEFT JOIN messages m ON m.id = r.message_id
    WHERE r.broadcast_id = ${id} AND r.status = 'queued' AND (m.id IS NULL OR m.status = 'queued')`)[0]!.n

/**
 * Whether the send handed over `depth` sends ago still waits at the sender (not yet recorded by the message actor, or
 * queued for delivery; one held by quiet hours is not waiting for room until its hold ends). Dispatch goes in contact
 * order and the sender takes commands in order, so when that one waits about `depth` others wait too: a pacing figure
 * read with one index walk and one probe (counting the waiting among the newest 4,000 took 26 ms a step at 100,000
 * recipients). The message is found by a scalar subquery, a primary-key probe whatever the statistics (ADR 0032).
 */
export const senderBehind = async (tx: Tx, id: string, depth: number): Promise<boolean> => {
  const [row] = await tx<Array<{ waiting: boolean }>>`
    SELECT coalesce((SELECT m.status = 'queued' AND (m.not_before IS NULL OR m.not_before <= now())
      FROM messages m WHERE m.id = q.message_id), true) AS waiting
    FROM (
      SELECT r.message_id FROM broadcast_recipients r WHERE r.broadcast_id = ${id} AND r.status = 'queued'
      ORDER BY r.contact_id DESC OFFSET ${depth} LIMIT 1
    ) q`
  return row?.waiting ?? false
}

/**
 * Messages whose delivery is not settled: a WhatsApp message sent but neither delivered nor failed yet (a delivered
 * one may still be read: an engagement, not a delivery outcome). An email is settled once sent (no receipts).
 */
export const unsettled = async (tx: Tx, id: string, channel: "email" | "whatsapp") =>
  channel === "email" ? 0 : (await tx<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM broadcast_recipients r JOIN messages m ON m.id = r.message_id
    WHERE r.broadcast_id = ${id} AND r.status = 'queued' AND m.status IN ('queued', 'sent')`)[0]!.n

// Read by the ingress as well (counts, a test send, checking a draft's segments): kept in core/broadcast/reads.ts.
export { hotelOf, type OutcomeRow, outcomes, segmentDefinitions } from "../../core/broadcast/reads.ts"
