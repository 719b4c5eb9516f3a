import type { CountCondition, Leaf, SegmentDefinition, SegmentNode } from "../../schemas/segment.ts"
import { gate } from "../message/gate.ts"
import { RECEIVED_STATUSES, type SegmentContext, type Value } from "./catalog.ts"
import type { ContactState, StayState } from "./contactState.ts"
import { compileLeaf } from "./leaf.ts"
import { holds } from "./predicate.ts"
import { DAY_MS, localToday, utcToday } from "./time.ts"

/*
 * The segment language over one contact's loaded state: what the message sender re-checks at send time. It means
 * exactly what toSql.ts compiles (the differential test, test/core/segment/differential.test.ts, holds them together).
 *
 * Time, given `now` (the evaluation instant; a count and a re-check each pass their own):
 * - Stay dates (stay.check_in, check_out, booking_date) are calendar dates in the stay's hotel: relative windows
 *   count from "today" in the hotel's zone (hotels.timezone), so "arriving within the next 14 days" means the same
 *   days to the hotel whatever the server's zone.
 * - Contact-level dates (contact.date_of_birth, custom date fields) count from today in UTC: a contact has no zone of
 *   its own yet.
 * - `within_next {days: n}` on a date: from today to today + n, both included (n = 0: today); `within_last {days: n}`:
 *   from today - n to today. `before`/`after` exclude the day named, `between [a, b]` includes both.
 * - Date-times (contact.created_at, custom datetime fields) compare instants, at millisecond precision: `within_last`
 *   is [now - n×24 h, now], `within_next` [now, now + n×24 h]; a plain date as a value is its midnight in UTC.
 * - `performed { within_last }`: events in [now - n×24 h, now], core and website (CDP) events alike.
 * - `loyalty.tier` is the tier at the database's clock (loyalty_member_tier), not at `now`: tier windows are the
 *   loyalty module's rule and the loader reads it from there.
 * Missing values and negations: see predicate.ts. `received` counts outbound messages that reached the provider
 * (sent, delivered, read). `reachable` is the message sender's gate (core/message/gate.ts).
 */

const countHolds = (n: number, c: CountCondition | undefined): boolean => {
  if (c === undefined) return n >= 1
  switch (c.op) {
    case "eq": return n === c.value
    case "neq": return n !== c.value
    case "gt": return n > c.value
    case "gte": return n >= c.value
    case "lt": return n < c.value
    case "lte": return n <= c.value
  }
}

const leafHolds = (
  n: Leaf, ctx: SegmentContext, stay: StayState | undefined, state: ContactState
): boolean => {
  const leaf = compileLeaf(n, ctx.customFields, ctx.now, stay !== undefined)
  if ("fault" in leaf) throw new Error(`matches needs a validated definition: ${n.field} ${n.op}: ${leaf.fault.message}`)
  const value: Value = leaf.field.scope === "stay" ? leaf.field.get(stay!) : leaf.field.get(state)
  const today = stay !== undefined ? localToday(ctx.now, stay.hotel_timezone) : utcToday(ctx.now)
  return holds(leaf, value, today)
}

const node = (n: SegmentNode, state: ContactState, ctx: SegmentContext, stay: StayState | undefined): boolean => {
  if ("all" in n) return n.all.every((x) => node(x, state, ctx, stay))
  if ("any" in n) return n.any.some((x) => node(x, state, ctx, stay))
  if ("not" in n) return !node(n.not, state, ctx, stay)
  if ("field" in n) return leafHolds(n, ctx, stay, state)
  if ("has_stay" in n) {
    const where = n.has_stay.where
    return countHolds(state.stays.filter((s) => node(where, state, ctx, s)).length, n.has_stay.count)
  }
  if ("performed" in n) {
    const p = n.performed
    const now = ctx.now.getTime()
    const since = p.within_last === undefined ? undefined : now - p.within_last.days * DAY_MS
    const count = state.events.filter((e) =>
      e.type === p.event && (since === undefined || (e.at.getTime() >= since && e.at.getTime() <= now))
    ).length
    return countHolds(count, p.count)
  }
  if ("received" in n) {
    const r = n.received
    const found = state.messages.some((m) =>
      m.channel === r.channel && RECEIVED_STATUSES.includes(m.status) &&
      (r.broadcast_id === undefined || m.broadcast_id === r.broadcast_id.toLowerCase()) &&
      (r.journey_id === undefined || m.journey_id === r.journey_id.toLowerCase())
    )
    return r.negate === true ? !found : found
  }
  const { channel, category } = n.reachable
  return gate(state.contact, channel, category, state.suppressed[channel]) === null
}

/** Whether the contact whose state this is matches a validated definition at `ctx.now`. */
export const matches = (def: SegmentDefinition, state: ContactState, ctx: SegmentContext): boolean =>
  node(def.match, state, ctx, undefined)
