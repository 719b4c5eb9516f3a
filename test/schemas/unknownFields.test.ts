import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import { GuestRequest } from "../../schemas/guest.ts"
import { issueDetails } from "../../src/http/issues.ts"
import { ReservationRequest } from "../../schemas/reservation.ts"
import { fieldPath } from "../../schemas/text.ts"
import { MAX_UNKNOWN_FIELD_WARNINGS, unknownFieldWarnings, unknownKeys } from "../../schemas/unknownFields.ts"
import { CreateWebhookRequest } from "../../schemas/webhook.ts"
import { referenceUnknownKeys } from "./unknownFieldsReference.ts"

/** Bodies holding every field their schema declares, down to the nested ones: the walk must know all of them. */
const fullReservation = {
  reservation_id: "R-1", confirmation_number: "C", booking_id: "B", hotel_id: "6f1c3a52-8f3e-4a7e-9a39-2d1c2b3a4f5e",
  hotel_code: "H", hotel_name: "Hotel", check_in: "2026-12-01", check_out: "2026-12-04", booking_date: "2026-11-01",
  status: "confirmed", channel: "web", source: "pms", company: "Co", amount: 10, amount_net: 9, currency: "EUR",
  market_segment: "leisure", agency: "A", agency_code: "AC", nights: 3, external_created_at: "2026-11-01T10:00:00Z",
  external_updated_at: "2026-11-01T10:00:00Z",
  guests: [{
    first_name: "Ana", last_name: "G", email: "a@example.com", phone: "+34600000001", is_holder: true, pax_type: "adult",
    date_of_birth: "1990-01-01", gender: "female", nationality: "ES", document_type: "passport", document_number: "X1",
    address: { street: "Calle 1", anything: { nested: true } }, email_consent: true, whatsapp_marketing_consent: null,
    language: "es", pre_checkin_completed_at: null, pre_checkin_source: null, opt_in_status: "opted_in"
  }],
  stays: [{
    start_date: "2026-12-01", end_date: "2026-12-04", room_type: "DBL", room_number: "101", board_type: "BB", rate_code: "BAR",
    adults: 2, children: 0, babies: 0
  }],
  extras: [{ name: "Spa", amount: 20, code: "SPA", quantity: 1, date: "2026-12-02", notes: "n" }],
  comments: "c",
  metadata: { free: { form: ["anything", { goes: 1 }] } }
}

const fullGuest = {
  phone: "+34600000001", first_name: "Ana", last_name: "G", email: null, language: "es", tags: ["vip"],
  custom_fields: { loyalty_id: "L1", nested: { any: 1 } }, hotel_name: "Hotel", hotel_code: "H", source: "api",
  booking: {
    booking_id: "B1", reservation_id: "R1", check_in: "2026-12-01", check_out: "2026-12-02", room_type: null, room_number: null,
    rate_plan: null, board_type: "BB", booking_channel: null, total_amount: 1, currency: "EUR", status: "Confirmed",
    guests: [{ first_name: "Bo", last_name: null, email: null, is_holder: false, pax_type: "Adult", relationship_to_holder: null, pre_checkin_completed_at: null, pre_checkin_source: null }],
    extras: [{ name: "x", amount: 1, quantity: 1, notes: null }]
  },
  trigger_event: true, update_if_exists: true, opt_in_status: null, whatsapp_marketing_consent: true, email_consent: false,
  date_of_birth: null, gender: null, nationality: null, document_type: null, document_number: null, address: "free text",
  subscription_status: "active", communication_preferences: { marketing: true, utility: true }, consent_source: null,
  consent_timestamp: null, fill_only_fields: ["address"]
}

const fullWebhook = {
  url: "https://example.com/h", event_types: ["*"], headers: { "X-Any-Name": "v" }, enabled: true, description: null,
  retry_policy: { max_attempts: 3, initial_backoff_seconds: 10, max_backoff_seconds: 60 }, secret: "whsec_x"
}

/** Keys whose values are free-form: nothing under them is unknown. */
const FREE_FORM = new Set(["metadata", "address", "custom_fields", "headers"])

type Json = unknown
type Path = ReadonlyArray<string | number>
const clone = (v: Json): any => JSON.parse(JSON.stringify(v))

/** Every object of a body outside its free-form parts, with its path: where an unknown key can be put. */
const objectsOf = (v: Json, path: Path = []): Array<Path> => {
  if (Array.isArray(v)) return v.flatMap((item, i) => objectsOf(item, [...path, i]))
  if (typeof v !== "object" || v === null) return []
  return [path, ...Object.entries(v).flatMap(([k, child]) => (FREE_FORM.has(k) ? [] : objectsOf(child, [...path, k])))]
}
const at = (v: any, path: Path): any => path.reduce((o, k) => o[k], v)

/** A body with some of its fields left out, recursively (outside free-form parts): still only known keys. */
const thinned = (v: Json, keep: () => boolean): Json => {
  if (Array.isArray(v)) return v.map((item) => thinned(item, keep))
  if (typeof v !== "object" || v === null) return v
  return Object.fromEntries(Object.entries(v).filter(() => keep()).map(([k, c]) => [k, FREE_FORM.has(k) ? c : thinned(c, keep)]))
}

const cases = [
  { name: "ReservationRequest", schema: ReservationRequest as Schema.Top, body: fullReservation },
  { name: "GuestRequest", schema: GuestRequest as Schema.Top, body: fullGuest },
  { name: "CreateWebhookRequest", schema: CreateWebhookRequest as Schema.Top, body: fullWebhook }
]

/** Key names an unknown key may have: anything, the prototype's own names included, but none the schema declares. */
const unknownName = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "phone_number", "room", "roomtype"),
  fc.string({ minLength: 1, maxLength: 12 }).map((s) => `x_${s}`),
  fc.string({ unit: "binary", maxLength: 6 }).map((s) => `zz\u0000${s}`)
)

describe("unknownKeys: the keys of a body its payload schema does not declare", () => {
  for (const { name, schema, body } of cases) {
    it(`${name}: a body made only of known keys, any of them left out, yields nothing`, () => {
      const keysOf = unknownKeys(schema)
      expect(keysOf(body)).toEqual([])
      fc.assert(fc.property(fc.infiniteStream(fc.boolean()), (coin) => {
        const it = coin[Symbol.iterator]()
        expect(keysOf(thinned(body, () => it.next().value as boolean))).toEqual([])
      }), { numRuns: 200 })
    })

    it(`${name}: one unknown key put anywhere (outside free-form parts) yields exactly one path, naming it`, () => {
      const keysOf = unknownKeys(schema)
      const places = objectsOf(body)
      fc.assert(fc.property(fc.nat({ max: places.length - 1 }), unknownName, fc.jsonValue(), (i, key, value) => {
        const place = places[i]!
        const target = at(body, place)
        fc.pre(!Object.hasOwn(target, key))
        const copy = clone(body)
        // defineProperty: `__proto__` becomes an own key, as JSON.parse makes it.
        Object.defineProperty(at(copy, place), key, { value, enumerable: true, configurable: true, writable: true })
        expect(keysOf(copy)).toEqual([[...place, key]])
      }), { numRuns: 300 })
    })
  }

  it("finds what the direct walk (the reference) finds, key for key, in any body", () => {
    const Tagged = Schema.Struct({
      items: Schema.Array(Schema.Union([
        Schema.Struct({ kind: Schema.Literal("a"), only_a: Schema.optionalKey(Schema.Struct({ deep: Schema.String })) }),
        Schema.Struct({ kind: Schema.Literal("b"), only_b: Schema.optionalKey(Schema.String) }),
        Schema.Tuple([Schema.String, Schema.Struct({ t: Schema.Number })])
      ])),
      map: Schema.optionalKey(Schema.Record(Schema.String, Schema.Struct({ v: Schema.Number })))
    })
    const tagged = { items: [{ kind: "a", only_a: { deep: "x" } }, { kind: "b", only_b: "y" }, ["s", { t: 1 }]], map: { k: { v: 1 } } }
    for (const { schema, body } of [...cases, { schema: Tagged as Schema.Top, body: tagged }]) {
      const cached = unknownKeys(schema)
      const reference = referenceUnknownKeys(schema)
      const places = objectsOf(body)
      const key = fc.oneof(unknownName, fc.constantFrom(...new Set(places.flatMap((p) => Object.keys(at(body, p))))))
      // Each change puts a key (unknown, or one the schema knows, with any value) somewhere in the body.
      const change = fc.tuple(fc.nat({ max: places.length - 1 }), key, fc.jsonValue({ maxDepth: 3 }))
      fc.assert(fc.property(fc.array(change, { maxLength: 6 }), (changes) => {
        const copy = clone(body)
        for (const [i, k, value] of changes) {
          // An earlier change may have replaced a parent of this place: then there is nowhere to put it.
          const target = places[i]!.reduce<any>((o, step) => (typeof o === "object" && o !== null ? o[step] : undefined), copy)
          if (typeof target === "object" && target !== null) Object.defineProperty(target, k, { value, enumerable: true, configurable: true, writable: true })
        }
        expect(cached(copy)).toEqual(reference(copy))
      }), { numRuns: 300 })
      fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expect(cached(value)).toEqual(reference(value))
      }), { numRuns: 200 })
    }
  })

  it("names the walk-through's keys in body order, with the path syntax of the validation errors", () => {
    const body = { ...clone(fullReservation), room: "101" }
    body.guests[0].phone_number = "+34600000002"
    body.stays[0].roomtype = "DBL"
    expect(unknownFieldWarnings(ReservationRequest)(body)).toEqual([
      { code: "unknown_field", field: "guests[0].phone_number", message: "is not a field of this request; it was ignored" },
      { code: "unknown_field", field: "stays[0].roomtype", message: "is not a field of this request; it was ignored" },
      { code: "unknown_field", field: "room", message: "is not a field of this request; it was ignored" }
    ])
  })

  it("stops at free-form parts and says nothing under a value of the wrong type (the decoder's business)", () => {
    const keysOf = unknownKeys(ReservationRequest)
    expect(keysOf({ metadata: { any: { thing: 1 } }, guests: [{ address: { odd: 1 } }] })).toEqual([])
    expect(keysOf({ guests: { not: "an array" }, stays: "text", extras: [1, null, "x"] })).toEqual([])
    for (const body of [null, 1, "x", [], [{ a: 1 }], true]) expect(keysOf(body)).toEqual([])
  })

  it("tells union members apart by their literals, and knows every key of a union otherwise", () => {
    const Tagged = Schema.Struct({
      item: Schema.Union([
        Schema.Struct({ kind: Schema.Literal("a"), only_a: Schema.optionalKey(Schema.String) }),
        Schema.Struct({ kind: Schema.Literal("b"), only_b: Schema.optionalKey(Schema.String) })
      ]),
      either: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Struct({ x: Schema.Number }), Schema.Struct({ y: Schema.Number })])))
    })
    const keysOf = unknownKeys(Tagged)
    expect(keysOf({ item: { kind: "a", only_a: "1" } })).toEqual([])
    expect(keysOf({ item: { kind: "a", only_b: "1" } })).toEqual([["item", "only_b"]])
    expect(keysOf({ either: { x: 1, y: 2, z: 3 } })).toEqual([["either", "z"]])
    expect(keysOf({ either: null })).toEqual([])
  })

  it("follows lazy (recursive) schemas and the encoded names of renamed keys", () => {
    interface Node { readonly name: string; readonly children: ReadonlyArray<Node> }
    const Node: Schema.Codec<Node> = Schema.Struct({ name: Schema.String, children: Schema.Array(Schema.suspend(() => Node)) })
    expect(unknownKeys(Node)({ name: "a", children: [{ name: "b", children: [{ name: "c", children: [], extra: 1 }] }] }))
      .toEqual([["children", 0, "children", 0, "extra"]])
    const Renamed = Schema.Struct({ inside: Schema.String }).pipe(Schema.encodeKeys({ inside: "outside" }))
    expect(unknownKeys(Renamed)({ outside: "x", inside: "y" })).toEqual([["inside"]])
  })

  it("counts past the cap in one last warning, so the answer never grows with a hostile body", () => {
    const body = { ...clone(fullWebhook), ...Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])) }
    const warnings = unknownFieldWarnings(CreateWebhookRequest)(body)
    expect(warnings).toHaveLength(MAX_UNKNOWN_FIELD_WARNINGS + 1)
    expect(warnings.at(-1)).toEqual({ code: "unknown_fields_omitted", field: "(body)", message: `${500 - MAX_UNKNOWN_FIELD_WARNINGS} more unknown fields were ignored` })
  })

  it("writes paths as the validation errors do, refused characters escaped", () => {
    expect(fieldPath(["guests", 0, "phone_number"])).toBe("guests[0].phone_number")
    expect(fieldPath([0, "a"])).toBe("[0].a")
    expect(fieldPath(["a\u0000b"])).toBe("a\\u0000b")
    expect(fieldPath([])).toBe("")
  })

  it("validation details name prototype-named keys as fields like any other (they answered 500)", () => {
    const Closed = Schema.Struct({ a: Schema.String })
    const body = JSON.parse(`{"a":1,"toString":1,"__proto__":{"x":1},"constructor":1}`)
    const decoded = Schema.decodeUnknownResult(Closed)(body, { errors: "all", onExcessProperty: "error" })
    if (Result.isSuccess(decoded)) throw new Error("decoded")
    const details = issueDetails(decoded.failure.issue)
    expect(Object.keys(details).sort()).toEqual(["__proto__", "a", "constructor", "toString"])
    expect(Object.hasOwn(details, "__proto__")).toBe(true)
    expect(JSON.parse(JSON.stringify(details)).toString).toEqual(["is not a field of this request"])
  })
})
