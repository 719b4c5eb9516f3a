import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { isKnownPath, isKnownTag, type MergeContext, render, resolvePath, resumeUrlOf, tagsIn, tagValues } from "../../../core/journey/mergeTags.ts"
import { parseDuration } from "../../../schemas/isoDuration.ts"

const ctx = (payload: Record<string, unknown>): MergeContext => ({
  event: { name: "cart.abandoned", id: "e1", occurred_at: "2026-11-22T10:00:00Z", payload },
  contact: { first_name: "Ana", last_name: "<O'Neil>", email: "a@b.co", phone: null, language: "es" },
  hotel: { name: "Hotel Sol", code: "SOL" }
})

describe("merge tags", () => {
  it("renders the spec's event tags from context, properties and the contact; a known tag without a value renders empty", () => {
    const c = ctx({ context: { check_in: "2027-01-02", value: 250.5, adults: 2, stage: "payment" }, properties: { promo: "WINTER" } })
    expect(render("{{event_check_in}}|{{ event_value }}|{{event_adults}}|{{event_stage}}|{{event_prop_promo}}|{{event_name}}|{{event_room_name}}|{{hotel_name}}", c, { html: false }))
      .toBe("2027-01-02|250.5|2|payment|WINTER|cart.abandoned||Hotel Sol")
  })

  it("tells each tag's value as rendered, once per tag, null for none (unescaped: the value, not the HTML)", () => {
    const c = ctx({ context: { check_in: "2027-01-02", adults: 2 } })
    expect(tagValues(["Hi {{contact_first_name}} {{ contact_last_name }}", "<p>{{event_check_in}} {{contact_first_name}} {{event_room_name}} {{event_adults}}</p>", ""], c))
      .toEqual({ contact_first_name: "Ana", contact_last_name: "<O'Neil>", event_check_in: "2027-01-02", event_room_name: null, event_adults: "2" })
    expect(tagValues(["no tags"], c)).toEqual({})
  })

  it("escapes values in HTML, not in text", () => {
    const c = ctx({})
    expect(render("<b>{{contact_last_name}}</b>", c, { html: true })).toBe("<b>&lt;O&#39;Neil&gt;</b>")
    expect(render("{{contact_last_name}}", c, { html: false })).toBe("<O'Neil>")
  })

  it("knows the tags it can render and refuses others", () => {
    expect(tagsIn("a {{event_resume_url}} b {{ event_prop_x_1 }}")).toEqual(["event_resume_url", "event_prop_x_1"])
    expect(isKnownTag("event_resum_url")).toBe(false)
    expect(isKnownTag("event_prop_Bad")).toBe(false)
    expect(isKnownTag("contact_first_name")).toBe(true)
  })

  it("resolves parameter paths to non-empty scalars only", () => {
    const c = ctx({ context: { resume_url: "https://x.example/r", check_in: "" }, properties: { n: 3, o: { deep: true } } })
    expect(resolvePath("event.payload.context.resume_url", c)).toBe("https://x.example/r")
    expect(resolvePath("event.payload.context.check_in", c)).toBeUndefined()
    expect(resolvePath("event.payload.properties.n", c)).toBe("3")
    expect(resolvePath("event.payload.properties.o", c)).toBeUndefined()
    expect(resolvePath("contact.first_name", c)).toBe("Ana")
    expect(resolvePath("contact.phone", c)).toBeUndefined()
    expect(resumeUrlOf(ctx({ context: {} }))).toBeUndefined()
    expect(isKnownPath("event.payload.context.resume_url")).toBe(true)
    expect(isKnownPath("contact.password")).toBe(false)
    expect(isKnownPath("event.payload")).toBe(false)
  })

  it("renders any text without a tag unchanged", () => {
    fc.assert(fc.property(fc.string().filter((s) => !s.includes("{{")), (s) => {
      expect(render(s, ctx({}), { html: true })).toBe(s)
    }))
  })
})

describe("ISO 8601 durations", () => {
  it("reads weeks, days and times, signed, and refuses years, months and empty forms", () => {
    expect(parseDuration("PT1H")).toEqual({ ms: 3_600_000, days: 0, hasTime: true })
    expect(parseDuration("-P2D")).toEqual({ ms: -172_800_000, days: -2, hasTime: false })
    expect(parseDuration("P1W2DT30M")?.ms).toBe((9 * 24 * 60 + 30) * 60_000)
    expect(parseDuration("PT0.5S")?.ms).toBe(500)
    for (const bad of ["P", "PT", "P1Y", "P1M", "1D", "PT1D", "P-1D", ""]) expect(parseDuration(bad), bad).toBeUndefined()
  })
})
