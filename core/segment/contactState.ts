import type postgres from "postgres"
import { childrenOf, type SegmentDefinition, type SegmentNode } from "../../schemas/segment.ts"
import type { Recipient } from "../message/gate.ts"

// One contact's state, as the TypeScript evaluator (evaluate.ts) reads it: what the message sender loads at send time
// to re-check a segment. Every column the catalogue's accessors read is here, in the form they read it.

/** A stay (a reservation the contact is a guest of), with its hotel's code and zone. Dates are `YYYY-MM-DD`. */
export interface StayState {
  readonly id: string
  readonly hotel_id: string
  readonly hotel_code: string
  readonly hotel_timezone: string
  readonly status: string
  readonly stage: string
  readonly check_in: string
  readonly check_out: string
  readonly booking_date: string | null
  readonly nights: number
  readonly channel: string | null
  readonly source: string
  readonly market_segment: string | null
  readonly rate_code: string | null
  readonly room_type: string | null
  readonly board_type: string | null
  readonly amount: number | null
  readonly agency: string | null
  readonly company: string | null
}

export interface ContactRow extends Recipient {
  readonly id: string
  readonly language: string
  readonly nationality: string | null
  readonly gender: string | null
  readonly date_of_birth: string | null
  readonly address: unknown
  readonly tags: ReadonlyArray<string>
  readonly custom_fields: Readonly<Record<string, unknown>>
  readonly source: string | null
  readonly created_at: Date
}

/** An outbound message; `journey_id` through its journey run. */
export interface SentMessage {
  readonly channel: string
  readonly status: string
  readonly broadcast_id: string | null
  readonly journey_id: string | null
}

export interface ContactState {
  readonly contact: ContactRow
  readonly stays: ReadonlyArray<StayState>
  /** The contact's core, website and CDP events: their type and time. */
  readonly events: ReadonlyArray<{ readonly type: string; readonly at: Date }>
  readonly messages: ReadonlyArray<SentMessage>
  /** Whether the contact's address on each channel is suppressed (the sender's `isSuppressed`). */
  readonly suppressed: { readonly email: boolean; readonly whatsapp: boolean }
  /** The loyalty member with the contact's email (active, kind member), if any; `tier` by `loyalty_member_tier`. */
  readonly loyalty: { readonly tier: string | null; readonly points: number } | null
}

type Tag = postgres.Sql | postgres.TransactionSql | postgres.ReservedSql

/** What evaluating a definition reads beyond the contact row: stays, the event types it counts, messages. */
export interface StateNeeds { readonly stays: boolean; readonly eventTypes: ReadonlyArray<string>; readonly messages: boolean }

export const needsOf = (def: SegmentDefinition): StateNeeds => {
  let stays = false
  let messages = false
  const eventTypes = new Set<string>()
  const visit = (n: SegmentNode): void => {
    if ("has_stay" in n) stays = true
    else if ("received" in n) messages = true
    else if ("performed" in n) eventTypes.add(n.performed.event)
    for (const [child] of childrenOf(n, [])) visit(child)
  }
  visit(def.match)
  return { stays, eventTypes: [...eventTypes], messages }
}

/**
 * Loads what `matches` needs of one contact, in up to four statements sent together on `tx` (a tenant transaction: RLS
 * applies). Undefined when the contact does not exist in the scope. Given the definition it will be evaluated for
 * (the sender's re-check), it reads only the stays, event types and messages that definition looks at.
 */
export const loadContactState = async (
  tx: Tag, tenantId: string, sandbox: boolean, contactId: string, only?: SegmentDefinition
): Promise<ContactState | undefined> => {
  const q = tx as postgres.Sql
  const needs = only === undefined ? undefined : needsOf(only)
  const none = Promise.resolve([] as Array<postgres.Row>)
  const typeFilter = (column: postgres.Fragment) =>
    needs === undefined ? q`` : q`AND ${column} = ANY(${needs.eventTypes as Array<string>}::text[])`
  const [contacts, stays, events, messages] = await Promise.all([
    q`
      SELECT c.id, c.email, c.phone, c.language, c.nationality, c.gender, c.date_of_birth::text AS date_of_birth, c.address,
        c.tags, c.custom_fields, c.source, date_trunc('milliseconds', c.created_at) AS created_at, c.email_consent,
        c.whatsapp_marketing_consent, c.email_opted_out_at, c.whatsapp_opted_out_at,
        EXISTS (SELECT 1 FROM suppressions s WHERE s.tenant_id = c.tenant_id AND s.sandbox = c.sandbox
          AND s.channel = 'email' AND s.address = c.email) AS email_suppressed,
        EXISTS (SELECT 1 FROM suppressions s WHERE s.tenant_id = c.tenant_id AND s.sandbox = c.sandbox
          AND s.channel = 'whatsapp' AND s.address = c.phone) AS whatsapp_suppressed,
        m.balance_active::float8 AS loyalty_points, m.member_id IS NOT NULL AS is_member,
        (SELECT t.tier_slug FROM loyalty_member_tier(m.member_id) t) AS loyalty_tier
      FROM contacts c
      LEFT JOIN loyalty_members m ON m.tenant_id = c.tenant_id AND m.sandbox = c.sandbox AND m.email = lower(c.email)
        AND m.status = 'active' AND m.kind = 'member'
      WHERE c.tenant_id = ${tenantId} AND c.sandbox = ${sandbox} AND c.id = ${contactId}`.execute(),
    needs !== undefined && !needs.stays ? none : q`
      SELECT r.id, r.hotel_id::text AS hotel_id, h.code AS hotel_code, h.timezone AS hotel_timezone, r.status,
        r.guest_stage AS stage, r.check_in::text AS check_in, r.check_out::text AS check_out,
        r.booking_date::text AS booking_date, r.nights, r.channel, r.source, r.market_segment, r.rate_plan AS rate_code,
        r.room_type, r.stays -> 0 ->> 'board_type' AS board_type, r.amount::float8 AS amount, r.agency, r.company
      FROM reservations r JOIN hotels h ON h.id = r.hotel_id
      WHERE r.tenant_id = ${tenantId} AND r.sandbox = ${sandbox}
        AND r.id IN (SELECT g.reservation_id FROM reservation_guests g WHERE g.contact_id = ${contactId})`.execute(),
    needs !== undefined && needs.eventTypes.length === 0 ? none : q`
      SELECT type, created_at AS at FROM events
      WHERE tenant_id = ${tenantId} AND sandbox = ${sandbox} AND contact_id = ${contactId} ${typeFilter(q`type`)}
      UNION ALL
      SELECT event, occurred_at FROM website_events
      WHERE tenant_id = ${tenantId} AND sandbox = ${sandbox} AND contact_id = ${contactId} ${typeFilter(q`event`)}
      UNION ALL
      SELECT type, ts FROM cdp_events
      WHERE tenant_id = ${tenantId} AND sandbox = ${sandbox} AND contact_id = ${contactId} ${typeFilter(q`type`)}`.execute(),
    needs !== undefined && !needs.messages ? none : q`
      SELECT m.channel, m.status, m.broadcast_id::text AS broadcast_id, jr.journey_id::text AS journey_id
      FROM messages m LEFT JOIN journey_runs jr ON jr.id = m.journey_run_id
      WHERE m.tenant_id = ${tenantId} AND m.sandbox = ${sandbox} AND m.contact_id = ${contactId}
        AND m.direction = 'outbound'`.execute()
  ])
  const [row] = contacts
  if (row === undefined) return undefined
  return {
    contact: {
      id: row.id, email: row.email, phone: row.phone, language: row.language, nationality: row.nationality,
      gender: row.gender, date_of_birth: row.date_of_birth, address: row.address, tags: row.tags,
      custom_fields: row.custom_fields ?? {}, source: row.source, created_at: row.created_at,
      email_consent: row.email_consent, whatsapp_marketing_consent: row.whatsapp_marketing_consent,
      email_opted_out_at: row.email_opted_out_at, whatsapp_opted_out_at: row.whatsapp_opted_out_at
    },
    stays: stays as unknown as ReadonlyArray<StayState>,
    events: events as unknown as ContactState["events"],
    messages: messages as unknown as ReadonlyArray<SentMessage>,
    suppressed: { email: row.email_suppressed, whatsapp: row.whatsapp_suppressed },
    loyalty: row.is_member ? { tier: row.loyalty_tier, points: row.loyalty_points } : null
  }
}
