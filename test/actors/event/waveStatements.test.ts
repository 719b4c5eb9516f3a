import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { contactsNamed, eventsByIdempotencyKey, insertEvents, matchingJourneys, type NewEvent } from "../../../actors/event/waveStatements.ts"
import { createJourney } from "../../support/journeys.ts"
import { createTenant, testSql, type TestTenant } from "../../support/platform.ts"
import { inWave, sameEitherWay } from "../../support/waves.ts"

// The event actor's wave statements against PostgreSQL: a wave of n asks answered as n waves of one ask each, ids
// matched whatever their case, and one insert for the wave's events, each answered with its own row.

const sql = testSql()
let tenant: TestTenant
const contacts: Array<{ id: string; phone: string }> = []
const scope = () => ({ tenant_id: tenant.tenant_id, sandbox: false })

beforeAll(async () => {
  tenant = await createTenant("eventwave")
  for (let i = 0; i < 3; i++) {
    const phone = `+3460${Date.now() % 10_000_000}${i}`
    const [c] = await sql`INSERT INTO contacts (id, tenant_id, sandbox, first_name, phone) VALUES (${randomUUID()}, ${tenant.tenant_id}, false, 'Guest', ${phone}) RETURNING id`
    contacts.push({ id: c!.id as string, phone })
  }
  const journey = (event: string, hotels: Array<string> = []) =>
    ({ name: `Wave ${event}`, hotel_ids: hotels, trigger: { type: "event", event }, steps: [{ id: "e", type: "end" }] })
  await createJourney(sql, tenant, journey("e.any"))
  await createJourney(sql, tenant, journey("e.any"))
  await createJourney(sql, tenant, journey("e.hotel", [tenant.hotel_id]))
}, 60_000)
afterAll(() => sql.end())

describe("the event actor's wave statements", () => {
  it("find the contacts named by id (any case) or phone, and nothing for the unknown", async () => {
    const found = await sameEitherWay(sql, scope(), contactsNamed, [
      { contact_id: contacts[0]!.id }, { phone: contacts[1]!.phone }, { contact_id: contacts[2]!.id.toUpperCase() },
      { contact_id: randomUUID() }, { phone: "+34600000000" }, { contact_id: contacts[0]!.id }
    ])
    expect(found).toEqual([contacts[0]!.id, contacts[1]!.id, contacts[2]!.id.toUpperCase(), undefined, undefined, contacts[0]!.id])
  })

  it("count the active journeys each event type triggers at its hotel", async () => {
    const counts = await sameEitherWay(sql, scope(), matchingJourneys, [
      { type: "e.any", hotel_id: null }, { type: "e.hotel", hotel_id: tenant.hotel_id }, { type: "e.hotel", hotel_id: null },
      { type: "e.hotel", hotel_id: randomUUID() }, { type: "e.none", hotel_id: null }, { type: "e.any", hotel_id: tenant.hotel_id }
    ])
    expect(counts).toEqual([2, 1, 0, 0, 0, 2])
  })

  it("record a wave's events in one statement, each answered with its own row, found again by idempotency key", async () => {
    const events: Array<NewEvent> = Array.from({ length: 4 }, (_, i) => ({
      id: randomUUID(), type: `e.${i}`, contact_id: i % 2 === 0 ? contacts[i % 3]!.id : null, hotel_id: i === 1 ? tenant.hotel_id : null,
      source: "api", payload: { n: i, nested: { big: 1e300 } }, idempotency_key: i < 2 ? `key-${randomUUID()}` : null
    }))
    const exit = await inWave(sql, scope(), Effect.forEach(events, insertEvents, { concurrency: "unbounded" }))
    expect(exit._tag).toBe("Success")
    const rows = exit._tag === "Success" ? exit.value : []
    expect(rows.map((r) => [r.id, r.type, r.contact_id, r.hotel_id])).toEqual(events.map((e) => [e.id, e.type, e.contact_id, e.hotel_id]))
    const stored = await sql`SELECT id, payload FROM events WHERE id = ANY(${events.map((e) => e.id)}::uuid[]) ORDER BY type`
    expect(stored.map((r) => r.payload)).toEqual(events.map((e) => e.payload))
    const again = await sameEitherWay(sql, scope(), eventsByIdempotencyKey, [events[1]!.idempotency_key!, "never-used", events[0]!.idempotency_key!])
    expect(again.map((r) => r?.id)).toEqual([events[1]!.id, undefined, events[0]!.id])
  })
})
