import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { EmailChannelRequest, isMailbox, TemplateList, WhatsAppChannelRequest } from "../../../schemas/channel.ts"
import { verifyTokenDigest, type EmailChannel } from "../../../core/channel/repository.ts"
import { mergeEmailChannel, planWhatsAppChange, whatsAppView, withHotelOverride } from "../../../core/channel/settings.ts"

const address = fc.constantFrom("a@x.example", "noreply@hotel.example", "b.c+tag@grupo.example")
const nullable = <A>(a: fc.Arbitrary<A>) => fc.option(a, { nil: null })
const maybe = <A>(a: fc.Arbitrary<A>) => fc.option(a, { nil: undefined })

const stored: fc.Arbitrary<EmailChannel> = fc.record({
  from_address: address,
  from_name: nullable(fc.constantFrom("Grupo", "Hotel")),
  reply_to: nullable(address),
  hotel_overrides: fc.constantFrom<Record<string, { from_name: string }>>({}, { h1: { from_name: "H1" } }),
  send_rate_per_minute: nullable(fc.integer({ min: 1, max: 1000 }))
})

const request = fc.record({
  from_address: address,
  from_name: maybe(nullable(fc.constantFrom("New name"))),
  reply_to: maybe(nullable(address)),
  hotel_overrides: maybe(fc.constantFrom<Record<string, { reply_to: string }>>({}, { h2: { reply_to: "r@x.example" } })),
  send_rate_per_minute: maybe(nullable(fc.integer({ min: 1, max: 1000 })))
}).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as EmailChannelRequest)

describe("email channel PUT rules", () => {
  it("a field sent replaces the stored value (null clears), a field not sent keeps it, defaults on the first PUT", () => {
    fc.assert(fc.property(fc.option(stored, { nil: null }), request, (current, r) => {
      const merged = mergeEmailChannel(current, r)
      expect(merged.from_address).toBe(r.from_address)
      for (const [field, fallback] of [["from_name", null], ["reply_to", null], ["hotel_overrides", {}], ["send_rate_per_minute", null]] as const) {
        expect(merged[field]).toEqual(field in r ? r[field] : current ? current[field] : fallback)
      }
    }))
  })

  it("one hotel's override is set or removed, the others stay", () => {
    const base: EmailChannel = { from_address: "a@x.example", from_name: null, reply_to: null, hotel_overrides: { h1: { from_name: "1" }, h2: { from_name: "2" } }, send_rate_per_minute: null }
    expect(withHotelOverride(base, "h1", { reply_to: "r@x.example" }).hotel_overrides).toEqual({ h1: { reply_to: "r@x.example" }, h2: { from_name: "2" } })
    expect(withHotelOverride(base, "h2", null).hotel_overrides).toEqual({ h1: { from_name: "1" } })
  })
})

describe("whatsapp channel PUT rules", () => {
  const decode = Schema.decodeUnknownSync(WhatsAppChannelRequest)

  it("the first PUT needs both secrets; later PUTs keep what they do not send", () => {
    expect(planWhatsAppChange(null, decode({ phone_number_id: "1" }))).toEqual({ missing: ["access_token", "app_secret"] })
    expect(planWhatsAppChange(null, decode({ phone_number_id: "1", access_token: "t" }))).toEqual({ missing: ["app_secret"] })
    const current = { verify_token_sha256: verifyTokenDigest("v"), send_rate_per_minute: 10 }
    expect(planWhatsAppChange(current, decode({ phone_number_id: "2" }))).toEqual({
      phone_number_id: "2", access_token: undefined, app_secret: undefined, verify_token_sha256: verifyTokenDigest("v"), send_rate_per_minute: 10, templates: undefined
    })
    expect(planWhatsAppChange(current, decode({ phone_number_id: "2", verify_token: null, send_rate_per_minute: null, templates: [] })))
      .toMatchObject({ verify_token_sha256: null, send_rate_per_minute: null, templates: [] })
    expect(planWhatsAppChange(null, decode({ phone_number_id: "2", access_token: "t", app_secret: "s", verify_token: "new" })))
      .toMatchObject({ access_token: "t", app_secret: "s", verify_token_sha256: verifyTokenDigest("new") })
  })

  it("the public view says which secrets are set and shows none of them", () => {
    const view = whatsAppView({ tenant_id: "t", sandbox: true }, {
      phone_number_id: "1", access_token_encrypted: Buffer.from("sealed-token"), app_secret_encrypted: Buffer.from("sealed-secret"),
      verify_token_sha256: "digest", send_rate_per_minute: null, updated_at: new Date(0)
    }, [])
    expect(view).toEqual({ mode: "sandbox", phone_number_id: "1", access_token_set: true, app_secret_set: true, verify_token_set: true, templates: [], send_rate_per_minute: null, updated_at: "1970-01-01T00:00:00.000Z" })
  })

  it("a name and language registered twice is refused at the second, whatever the order", () => {
    const template = fc.record({
      name: fc.constantFrom("a", "b"), language: fc.constantFrom("es", "en_US"),
      category: fc.constantFrom("marketing", "utility", "authentication"), body_parameters: fc.integer({ min: 0, max: 100 })
    })
    fc.assert(fc.property(fc.array(template, { maxLength: 8 }), (list) => {
      const keys = list.map((t) => `${t.name}/${t.language}`)
      const repeats = keys.flatMap((k, i) => (keys.indexOf(k) < i ? [i] : []))
      const result = Schema.decodeUnknownExit(TemplateList)(list, { errors: "all" })
      if (repeats.length === 0) expect(result._tag).toBe("Success")
      else {
        expect(result._tag).toBe("Failure")
        const text = String(result)
        for (const i of repeats) expect(text).toContain(`repeats templates[${keys.indexOf(keys[i]!)}]`)
      }
    }))
  })
})

describe("sender addresses", () => {
  it("accepts mailboxes, role ones included, and refuses what would not survive MAIL FROM", () => {
    for (const ok of ["noreply@hotel.example", "a.b+c@sub.grupo.example", "x@xn--80ak6aa92e.com"]) expect(isMailbox(ok), ok).toBe(true)
    for (const bad of ["", "a", "a@b", "a@@b.example", "a b@c.example", ".a@b.example", "a@-b.example", "José@hotel.example", `${"a".repeat(65)}@b.example`, "a@b.example\r\nBcc: x@y.example"]) {
      expect(isMailbox(bad), bad).toBe(false)
    }
  })
})
