import type postgres from "postgres"
import type { CountCondition, SegmentDefinition, SegmentNode } from "../../schemas/segment.ts"
import { type Fragment, RECEIVED_STATUSES, type SegmentContext, type SqlTag } from "./catalog.ts"
import { compileLeaf } from "./leaf.ts"
import { holdsSql } from "./predicate.ts"
import { DAY_MS, isoDay, utcToday } from "./time.ts"

// A validated definition as one SQL condition over `c` (contacts). Only parameters carry what a definition holds: field
// names and operators choose fixed SQL text from the catalogue, and every value (custom field keys included) is a
// bound parameter. The caller puts `c.tenant_id = $t AND c.sandbox = $s` first and runs the statement in a tenant
// transaction (row-level security on) with a statement timeout. Time semantics: see evaluate.ts.

export type { SegmentContext }

const countSql = (q: postgres.Sql, n: Fragment, c: CountCondition): Fragment => {
  switch (c.op) {
    case "eq": return q`${n} = ${c.value}::int`
    case "neq": return q`${n} <> ${c.value}::int`
    case "gt": return q`${n} > ${c.value}::int`
    case "gte": return q`${n} >= ${c.value}::int`
    case "lt": return q`${n} < ${c.value}::int`
    case "lte": return q`${n} <= ${c.value}::int`
  }
}

const joined = (q: postgres.Sql, parts: ReadonlyArray<Fragment>, op: "AND" | "OR"): Fragment =>
  parts.length === 0 ? (op === "AND" ? q`true` : q`false`)
    : q`(${parts.reduce((acc, p) => (op === "AND" ? q`${acc} AND ${p}` : q`${acc} OR ${p}`))})`

/** The gate of core/message/gate.ts over `c`: an address, not suppressed, and for marketing no opt-out and consent. */
export const reachableWhere = (sql: SqlTag, channel: "email" | "whatsapp", category: "marketing" | "utility"): Fragment => {
  const q = sql as postgres.Sql
  const [address, optedOut, consent] = channel === "email"
    ? [q`c.email`, q`c.email_opted_out_at`, q`c.email_consent`]
    : [q`c.phone`, q`c.whatsapp_opted_out_at`, q`c.whatsapp_marketing_consent`]
  const sendable = q`${address} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM suppressions s
    WHERE s.tenant_id = c.tenant_id AND s.sandbox = c.sandbox AND s.channel = ${channel}::text AND s.address = ${address})`
  return category === "marketing" ? q`(${sendable} AND ${optedOut} IS NULL AND ${consent} IS TRUE)` : q`(${sendable})`
}

const node = (q: postgres.Sql, n: SegmentNode, ctx: SegmentContext, inStay: boolean): Fragment => {
  if ("all" in n) return joined(q, n.all.map((x) => node(q, x, ctx, inStay)), "AND")
  if ("any" in n) return joined(q, n.any.map((x) => node(q, x, ctx, inStay)), "OR")
  if ("not" in n) return q`(NOT ${node(q, n.not, ctx, inStay)})`
  if ("field" in n) {
    const leaf = compileLeaf(n, ctx.customFields, ctx.now, inStay)
    if ("fault" in leaf) throw new Error(`segmentWhere needs a validated definition: ${n.field} ${n.op}: ${leaf.fault.message}`)
    const today = inStay
      ? q`(${ctx.now.toISOString()}::timestamptz AT TIME ZONE h.timezone)::date`
      : q`${isoDay(utcToday(ctx.now))}::date`
    return holdsSql(q, leaf, today)
  }
  if ("has_stay" in n) {
    // From the contact's guest rows (correlated on g.contact_id = c.id, the index reservation_guests_contact): with
    // the reservation first and the guests as an IN list, PostgreSQL hashed all the tenant's matching stays and ran
    // the IN once per contact and stay (59 million index scans, 81 s, on 100,000 contacts). A guest listed twice on
    // one reservation is one stay: counted distinct.
    const stays = q`FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id JOIN hotels h ON h.id = r.hotel_id
      WHERE g.contact_id = c.id AND r.tenant_id = c.tenant_id AND r.sandbox = c.sandbox
        AND ${node(q, n.has_stay.where, ctx, true)}`
    const c = n.has_stay.count
    return c === undefined ? q`EXISTS (SELECT 1 ${stays})` : countSql(q, q`(SELECT count(DISTINCT r.id) ${stays})`, c)
  }
  if ("performed" in n) {
    const p = n.performed
    // Event times are microseconds, the evaluator's milliseconds: `< now + 1 ms` is "at most now" on both.
    const window = (at: Fragment) => p.within_last === undefined ? q`` : q`AND ${at} >= ${new Date(ctx.now.getTime() - p.within_last.days * DAY_MS).toISOString()}::timestamptz
      AND ${at} < ${new Date(ctx.now.getTime() + 1).toISOString()}::timestamptz`
    // Core events, website events (stored when a journey listens) and CDP (browser SDK) events alike.
    const sources = [
      q`FROM events e WHERE e.tenant_id = c.tenant_id AND e.sandbox = c.sandbox AND e.contact_id = c.id
        AND e.type = ${p.event}::text ${window(q`e.created_at`)}`,
      q`FROM website_events e WHERE e.tenant_id = c.tenant_id AND e.sandbox = c.sandbox AND e.contact_id = c.id
        AND e.event = ${p.event}::text ${window(q`e.occurred_at`)}`,
      q`FROM cdp_events e WHERE e.tenant_id = c.tenant_id AND e.sandbox = c.sandbox AND e.contact_id = c.id
        AND e.type = ${p.event}::text ${window(q`e.ts`)}`
    ]
    return p.count === undefined
      ? joined(q, sources.map((from) => q`EXISTS (SELECT 1 ${from})`), "OR")
      : countSql(q, q`(${sources.map((from) => q`(SELECT count(*) ${from})`).reduce((a, b) => q`${a} + ${b}`)})`, p.count)
  }
  if ("received" in n) {
    const r = n.received
    const found = q`EXISTS (SELECT 1 FROM messages m
      WHERE m.tenant_id = c.tenant_id AND m.sandbox = c.sandbox AND m.contact_id = c.id AND m.direction = 'outbound'
        AND m.channel = ${r.channel}::text AND m.status = ANY(${RECEIVED_STATUSES as Array<string>}::text[])
        ${r.broadcast_id === undefined ? q`` : q`AND m.broadcast_id = ${r.broadcast_id}::uuid`}
        ${r.journey_id === undefined ? q`` : q`AND EXISTS (SELECT 1 FROM journey_runs jr
          WHERE jr.id = m.journey_run_id AND jr.journey_id = ${r.journey_id}::uuid)`})`
    return r.negate === true ? q`(NOT ${found})` : found
  }
  return reachableWhere(q, n.reachable.channel, n.reachable.category)
}

/** The definition as a boolean condition over alias `c` (contacts). */
export const segmentWhere = (sql: SqlTag, def: SegmentDefinition, ctx: SegmentContext): Fragment =>
  node(sql as postgres.Sql, def.match, ctx, false)
