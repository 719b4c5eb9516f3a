import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { outboxMessages } from "../support/outbox.ts"
import { loyaltyHarness } from "./support.ts"

// The subscription below targets loopback (nothing listens; it stays disabled).
process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
const { h, setUp, tearDown, api, unique, enroll } = loyaltyHarness("loyalty-events")
beforeAll(async () => {
  await setUp()
  const tiers = await api("PUT", "/api/v1/loyalty/tiers", [
    { tier_slug: "blue", tier_name: "Blue", threshold: 0, basis: "qualifying_points" },
    { tier_slug: "gold", tier_name: "Gold", threshold: 1000, basis: "qualifying_points" }
  ])
  expect(tiers.status).toBe(200)
}, 60_000)
afterAll(async () => {
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
  await tearDown()
})

/** The loyalty webhook commands of one member in the outbox, oldest first: [event_type, data]. */
const events = async (memberId: string) =>
  (await outboxMessages(h.platform.config.namespace, h.tenant.tenant_id))
    .filter((m) => m.subject.startsWith(`${h.platform.config.namespace}.cmd.webhook.loyalty.`))
    .map((m) => m.payload as { event_type: string; data: Record<string, unknown> })
    .filter((p) => (p.data.member_id ?? (p.data.member as { member_id?: string } | undefined)?.member_id) === memberId)
    .map((p) => [p.event_type, p.data] as const)

describe("loyalty webhook events", () => {
  it("enrolment (new and reactivated, not a plain repeat), points earned (pending then confirmed), tier changed up and down", async () => {
    const m = await enroll(100)
    await api("POST", "/api/v1/loyalty/enroll", { email: m.email })
    await api("POST", "/api/v1/loyalty/unsubscribe", { member_id: m.member_id })
    await api("POST", "/api/v1/loyalty/enroll", { email: m.email })
    const pending = await api("POST", "/api/v1/loyalty/points", { member_id: m.member_id, amount: 150, currency: "EUR", nights: 0, status: "pending", reservation_id: "RES-EV", external_reference_id: unique("e") })
    await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: pending.body.data.transaction_id })
    // A retry announces nothing.
    const key = unique("e")
    await api("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "survey", scope_key: "S-1", points: 5, external_reference_id: key })
    await api("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "survey", scope_key: "S-1", points: 5, external_reference_id: key })
    await api("POST", "/api/v1/loyalty/reverse", { transaction_id: pending.body.data.transaction_id, reason: "cancellation" })
    const seen = await events(m.member_id)
    expect(seen.map(([t, d]) => [t, d.status ?? d.is_new ?? null])).toEqual([
      ["loyalty.member.enrolled", true],
      ["loyalty.member.enrolled", false],
      ["loyalty.points.earned", "pending"],
      ["loyalty.points.earned", "confirmed"],
      ["loyalty.tier.changed", null],
      ["loyalty.points.earned", "confirmed"],
      ["loyalty.points.reversed", "reversed"],
      ["loyalty.tier.changed", null]
    ])
    expect(seen[1]![1]).toMatchObject({ reactivated: true, member: { email: m.email } })
    expect(seen[2]![1]).toMatchObject({ points: 1500, reservation_id: "RES-EV", transaction_id: pending.body.data.transaction_id })
    expect(seen[4]![1]).toMatchObject({ previous: { slug: "blue" }, tier: { slug: "gold", name: "Gold" }, qualifying_points: 1500 })
    expect(seen[5]![1]).toMatchObject({ action_type: "survey", points: 5 })
    expect(seen[6]![1]).toMatchObject({ transaction_id: pending.body.data.transaction_id, points_reversed: 1500, points_unrecovered: 0, reason: "cancellation" })
    expect(seen[7]![1]).toMatchObject({ previous: { slug: "gold" }, tier: { slug: "blue" }, qualifying_points: 0 })
  })

  it("a redemption left pending needs fulfilment (one event); a fulfilled one announces nothing", async () => {
    const m = await enroll(5000)
    const reward = async (auto_fulfill: boolean) =>
      (await api("POST", "/api/v1/loyalty/rewards", { name: "Spa", type: "amenity", points_cost: 100, auto_fulfill })).body.data.reward_id as string
    const [manual, auto] = [await reward(false), await reward(true)]
    const key = unique("r")
    const first = await api("POST", "/api/v1/loyalty/redeem", { member_id: m.member_id, reward_id: manual, notes: "at 5 pm", external_reference_id: key })
    await api("POST", "/api/v1/loyalty/redeem", { member_id: m.member_id, reward_id: manual, notes: "at 5 pm", external_reference_id: key })
    await api("POST", "/api/v1/loyalty/redeem", { member_id: m.member_id, reward_id: auto, external_reference_id: unique("r") })
    await api("POST", "/api/v1/loyalty/redeem", { member_id: m.member_id, reward_id: manual, status: "fulfilled", external_reference_id: unique("r") })
    const seen = (await events(m.member_id)).filter(([t]) => t === "loyalty.redemption.fulfilment_required")
    expect(seen).toHaveLength(1)
    expect(seen[0]![1]).toEqual({
      member_id: m.member_id, redemption_id: first.body.data.redemption_id, transaction_id: first.body.data.transaction_id, status: "pending",
      reward: { reward_id: manual, name: "Spa", type: "amenity" }, quantity: 1, points: 100, notes: "at 5 pm"
    })
  })

  it("tier windows: a calendar-year tier counts only this year's confirmed, unreversed stays", async () => {
    const put = (tiers: unknown) => api("PUT", "/api/v1/loyalty/tiers", tiers)
    expect((await put([
      { tier_slug: "blue", tier_name: "Blue", threshold: 0, basis: "qualifying_points" },
      { tier_slug: "silver", tier_name: "Silver", threshold: 2, basis: "qualifying_nights", window: "calendar_year" },
      { tier_slug: "gold", tier_name: "Gold", threshold: 1000, basis: "qualifying_points", window: "rolling_12_months" }
    ])).status).toBe(200)
    try {
      const m = await enroll()
      const first = await api("POST", "/api/v1/loyalty/points", { member_id: m.member_id, amount: 10, currency: "EUR", nights: 2, external_reference_id: unique("w") })
      expect((await api("GET", `/api/v1/loyalty/member?member_id=${m.member_id}`)).body.data).toMatchObject({
        tier: { slug: "silver" }, tier_progress: { next_tier: "gold", to_next_tier: 1000 - 300, window: "rolling_12_months" }
      })
      // The stay moves to last year: out of both windows, still in the lifetime totals.
      await h.sql`ALTER TABLE loyalty_entries DISABLE TRIGGER loyalty_entries_append_only`
      await h.sql`UPDATE loyalty_entries SET created_at = now() - interval '13 months' WHERE entry_id = ${first.body.data.transaction_id}`
      await h.sql`ALTER TABLE loyalty_entries ENABLE TRIGGER loyalty_entries_append_only`
      expect((await api("GET", `/api/v1/loyalty/member?member_id=${m.member_id}`)).body.data).toMatchObject({
        tier: { slug: "blue" }, tier_progress: { qualifying_points: 300, qualifying_nights: 2, next_tier: "silver", to_next_tier: 2 }
      })
      // A stay this year counts; its reversal takes it out again (and the tier change is announced both ways).
      const second = await api("POST", "/api/v1/loyalty/points", { member_id: m.member_id, amount: 100, currency: "EUR", nights: 2, external_reference_id: unique("w") })
      expect((await api("GET", `/api/v1/loyalty/member?member_id=${m.member_id}`)).body.data.tier.slug).toBe("gold")
      await api("POST", "/api/v1/loyalty/reverse", { transaction_id: second.body.data.transaction_id })
      expect((await api("GET", `/api/v1/loyalty/member?member_id=${m.member_id}`)).body.data.tier.slug).toBe("blue")
      const changes = (await events(m.member_id)).filter(([t]) => t === "loyalty.tier.changed").map(([, d]) => [(d.previous as { slug: string } | null)?.slug, (d.tier as { slug: string }).slug])
      expect(changes).toEqual([["blue", "silver"], ["blue", "gold"], ["gold", "blue"]])
    } finally {
      await put([
        { tier_slug: "blue", tier_name: "Blue", threshold: 0, basis: "qualifying_points" },
        { tier_slug: "gold", tier_name: "Gold", threshold: 1000, basis: "qualifying_points" }
      ])
    }
  })

  it("subscriptions may listen to the loyalty event types", async () => {
    const res = await api("POST", "/api/v1/webhooks", { url: "https://127.0.0.1:1/loyalty", event_types: ["loyalty.tier.changed", "loyalty.redemption.fulfilment_required"], enabled: false })
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
  })
})
