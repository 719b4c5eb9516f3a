import fc from "fast-check"
import type { Leaf, SegmentDefinition, SegmentNode } from "../../../schemas/segment.ts"
import { type CustomFieldDef, FIELDS, fieldOf, type FieldType } from "../../../core/segment/catalog.ts"
import { OPERATORS } from "../../../core/segment/leaf.ts"
import { DAY_MS, isoDay, utcToday } from "../../../core/segment/time.ts"

// Random valid definitions for the segment tests, over the same small value pools as the random data (data.ts), so
// leaves hit as often as they miss. Hotel and journey ids are placeholders (`@hotel0`, `@journey1`) a test replaces
// with the ids of its own rows.

/** Evening in UTC: already tomorrow in Auckland and Kiritimati, still today in Los Angeles. */
export const NOW = new Date("2026-06-15T22:30:00.000Z")
export const TODAY = utcToday(NOW)

export const CUSTOM_FIELDS: ReadonlyArray<CustomFieldDef> = [
  { field_key: "k_str", field_type: "string", options: null },
  { field_key: "k_text", field_type: "text", options: null },
  { field_key: "k_sel", field_type: "select", options: ["a", "b", "c"] },
  { field_key: "k_num", field_type: "number", options: null },
  { field_key: "k_bool", field_type: "boolean", options: null },
  { field_key: "k_date", field_type: "date", options: null },
  { field_key: "k_dt", field_type: "datetime", options: null },
  { field_key: "k_multi", field_type: "multiselect", options: ["a", "b", "c"] }
]

export const HOTELS = [
  { code: "PMI", timezone: "Europe/Madrid" },
  { code: "LAX", timezone: "America/Los_Angeles" },
  { code: "AKL", timezone: "Pacific/Auckland" },
  { code: "CXI", timezone: "Pacific/Kiritimati" }
] as const
export const BROADCASTS = ["7f0c6b1e-8a3e-4d52-9a51-2b1f0c9e8d01", "7f0c6b1e-8a3e-4d52-9a51-2b1f0c9e8d02"] as const

/** The strings of each string field, data and definitions alike (case and pattern characters included on purpose). */
export const STRINGS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "contact.language": ["en", "es", "de", "EN"],
  "contact.nationality": ["DE", "ES", "FR"],
  "contact.gender": ["male", "female", "other"],
  "contact.address.country": ["DE", "ES", "FR"],
  "contact.address.city": ["Palma", "Berlin", "São Paulo", "palma de Mallorca"],
  "contact.source": ["pms", "api", "website"],
  "loyalty.tier": ["silver", "gold", "bronze"],
  "stay.hotel_id": ["@hotel0", "@hotel1", "@hotel2", "@hotel3"],
  "stay.hotel_code": ["PMI", "LAX", "AKL", "CXI", "pmi"],
  "stay.status": ["confirmed", "cancelled", "modified"],
  "stay.stage": ["pre_stay", "during_stay", "post_stay"],
  "stay.channel": ["booking.com", "direct", "Expedia"],
  "stay.source": ["pms", "api"],
  "stay.market_segment": ["leisure", "corporate"],
  "stay.rate_code": ["BAR", "NRF", "R_1%"],
  "stay.room_type": ["DBL", "SGL", "SUITE"],
  "stay.board_type": ["RO", "BB", "HB", "FB", "AI"],
  "stay.agency": ["TUI", "Jet2"],
  "stay.company": ["ACME", "50%_off Ltd", "Globex"],
  "custom.k_str": ["alpha", "Beta", "gamma ray", "a_c"],
  "custom.k_text": ["alpha", "Beta", "gamma ray", "100%"],
  "custom.k_sel": ["a", "b", "c"],
  "contact.tags": ["vip", "staff", "golf", "spa"],
  "custom.k_multi": ["a", "b", "c"]
}

export const NUMBERS: Readonly<Record<string, fc.Arbitrary<number>>> = {
  "stay.nights": fc.integer({ min: 0, max: 6 }),
  "stay.amount": fc.integer({ min: 0, max: 50_000 }).map((n) => n / 100),
  "loyalty.points": fc.integer({ min: 0, max: 1000 }),
  "custom.k_num": fc.integer({ min: -10, max: 10 }).map((n) => n / 2)
}

export const EVENT_TYPES = ["booking.created", "cart.abandoned", "page_view"] as const

const pick = <T>(xs: ReadonlyArray<T>) => fc.constantFrom(...xs)

/** Days from today, mostly close to it: relative windows and zones decide at their edges. */
export const dayOffset = fc.oneof({ arbitrary: fc.integer({ min: -3, max: 3 }), weight: 3 }, fc.integer({ min: -15, max: 15 }))
const day = dayOffset.map((d) => isoDay(TODAY + d))
const days = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 2 }), weight: 2 }, fc.integer({ min: 0, max: 12 }))
/** An instant near now: whole hours, a day boundary exactly, or one millisecond either side of it. */
export const instant = fc.oneof(
  fc.integer({ min: -15 * 24, max: 15 * 24 }).map((h) => NOW.getTime() + h * 3_600_000),
  fc.tuple(fc.integer({ min: -12, max: 12 }), fc.constantFrom(-1, 0, 1)).map(([d, ms]) => NOW.getTime() + d * DAY_MS + ms)
)
const pointValue = (type: FieldType): fc.Arbitrary<string> =>
  type === "date" ? day : fc.oneof(day, instant.map((t) => new Date(t).toISOString()), instant.map((t) => isoWithOffset(t)))
/** The same instant written with a +02:00 offset. */
const isoWithOffset = (t: number) => new Date(t + 2 * 3_600_000).toISOString().replace("Z", "+02:00")

/** A substring of a pool value, its case changed at random: `contains` and `starts_with` hit and miss. */
const fragmentOf = (pool: ReadonlyArray<string>, prefix: boolean) =>
  fc.tuple(pick(pool), fc.nat(), fc.nat(), fc.boolean()).map(([s, a, b, upper]) => {
    const from = prefix ? 0 : a % s.length
    const piece = s.slice(from, from + 1 + (b % (s.length - from))) || s
    return upper ? piece.toUpperCase() : piece
  })

const valueFor = (name: string, type: FieldType, op: string): fc.Arbitrary<Leaf["value"] | undefined> => {
  const pool = STRINGS[name] ?? []
  switch (op) {
    case "exists": return fc.constant(undefined)
    case "eq": case "neq":
      return type === "string" ? pick(pool) : type === "number" ? NUMBERS[name]! : fc.boolean()
    case "in": case "not_in": case "contains_any": case "contains_all": case "contains_none":
      return fc.uniqueArray(pick(pool), { minLength: 1, maxLength: 3 })
    case "contains": return fragmentOf(pool, false)
    case "starts_with": return fragmentOf(pool, true)
    case "gt": case "gte": case "lt": case "lte": return NUMBERS[name]!
    case "between":
      return type === "number"
        ? fc.tuple(NUMBERS[name]!, NUMBERS[name]!).map(([a, b]) => [Math.min(a, b), Math.max(a, b)])
        : fc.tuple(pointValue(type), pointValue(type)).map(([a, b]) => (order(type, a) <= order(type, b) ? [a, b] : [b, a]))
    case "before": case "after": return pointValue(type)
    default: return days.map((n) => ({ days: n }))
  }
}
const order = (type: FieldType, s: string) => (type === "date" || s.length === 10 ? Date.parse(`${s}T00:00:00Z`) : Date.parse(s))

export const CONTACT_FIELDS = [
  ...Object.entries(FIELDS).filter(([, f]) => f.scope === "contact").map(([n]) => n),
  ...CUSTOM_FIELDS.map((d) => `custom.${d.field_key}`)
]
export const STAY_FIELDS = Object.entries(FIELDS).filter(([, f]) => f.scope === "stay").map(([n]) => n)

/** Date fields three times as often: their zones and windows are where the evaluators can part. */
const weighted = (fields: ReadonlyArray<string>) =>
  fields.flatMap((f) => (["date", "datetime"].includes(fieldOf(f, CUSTOM_FIELDS)!.type) ? [f, f, f] : [f]))

const leaf = (fields: ReadonlyArray<string>): fc.Arbitrary<Leaf> =>
  pick(weighted(fields)).chain((name) => {
    const type = fieldOf(name, CUSTOM_FIELDS)!.type
    return pick(OPERATORS[type]).chain((op) =>
      valueFor(name, type, op).map((value) => (value === undefined ? { field: name, op } : { field: name, op, value }))
    )
  })

const count = fc.option(
  fc.record({ op: pick(["eq", "neq", "gt", "gte", "lt", "lte"] as const), value: fc.integer({ min: 0, max: 3 }) }),
  { nil: undefined }
)
const withCount = <T extends object>(o: T, c: { op: "eq" | "neq" | "gt" | "gte" | "lt" | "lte"; value: number } | undefined) =>
  c === undefined ? o : { ...o, count: c }

/** A tree of at most `depth` levels; `stay`: inside has_stay.where (stay fields and all/any/not only). */
const tree = (depth: number, stay: boolean): fc.Arbitrary<SegmentNode> => {
  const leaves: Array<fc.WeightedArbitrary<SegmentNode>> = [{ arbitrary: leaf(stay ? STAY_FIELDS : CONTACT_FIELDS), weight: 4 }]
  if (!stay) {
    leaves.push(
      { weight: 1, arbitrary: fc.tuple(pick(EVENT_TYPES), fc.option(days, { nil: undefined }), count).map(([event, n, c]) => ({
        performed: withCount(n === undefined ? { event } : { event, within_last: { days: n } }, c)
      })) },
      { weight: 1, arbitrary: fc.record({
        channel: pick(["email", "whatsapp"] as const),
        broadcast_id: fc.option(pick(BROADCASTS), { nil: undefined }),
        journey_id: fc.option(pick(["@journey0", "@journey1"]), { nil: undefined }),
        negate: fc.option(fc.boolean(), { nil: undefined })
      }, { requiredKeys: ["channel"] }).map((received) => ({ received })) },
      { weight: 1, arbitrary: fc.record({ channel: pick(["email", "whatsapp"] as const), category: pick(["marketing", "utility"] as const) })
        .map((reachable) => ({ reachable })) }
    )
  }
  if (depth <= 1) return fc.oneof(...leaves)
  const sub = tree(depth - 1, stay)
  // Compound nodes about as often as leaves, has_stay most: the stay fields' time zones decide only in there.
  const nodes: Array<fc.WeightedArbitrary<SegmentNode>> = [
    { weight: 1, arbitrary: fc.array(sub, { minLength: 1, maxLength: 3 }).map((all) => ({ all })) },
    { weight: 1, arbitrary: fc.array(sub, { minLength: 1, maxLength: 3 }).map((any) => ({ any })) },
    { weight: 1, arbitrary: fc.constantFrom({ all: [] }, { any: [] }) },
    { weight: 1, arbitrary: sub.map((not) => ({ not })) }
  ]
  if (!stay) {
    nodes.push({ weight: 4, arbitrary: fc.tuple(tree(Math.min(depth - 1, 2), true), count).map(([where, c]) => ({ has_stay: withCount({ where }, c) })) })
  }
  return fc.oneof(...leaves, ...nodes)
}

export const definition: fc.Arbitrary<SegmentDefinition> = tree(4, false).map((match) => ({ version: 1 as const, match }))

/** The definition with its placeholders replaced by real ids. */
export const withIds = (def: SegmentDefinition, ids: Readonly<Record<string, string>>): SegmentDefinition =>
  JSON.parse(JSON.stringify(def).replace(/@(hotel|journey)\d/g, (m) => ids[m] ?? m))
