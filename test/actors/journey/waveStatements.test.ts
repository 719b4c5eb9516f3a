import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../../../actors/runtime/Actor.ts"
import type { Run } from "../../../actors/journey/run.ts"
import {
  candidateJourneysOf, channelFactsOnce, contactFactsOf, hotelFactsOf, liveRunsOf, reservationFactsOf, runsById, saveRunsAndMoves
} from "../../../actors/journey/waveStatements.ts"
import { createJourney } from "../../support/journeys.ts"
import { createTenant, testSql, type TestTenant } from "../../support/platform.ts"
import * as wave from "../../support/waves.ts"

// The journey actor's wave statements against PostgreSQL, differentially: what a wave of n asks is answered exactly
// as n waves of one ask each (the one-envelope case is the statement as it was before it was shared), for contacts
// with and without runs, stays and facts, and asks that repeat an input.

const sql = testSql()
let tenant: TestTenant
const contacts: Array<string> = []
const runs: Array<string> = []
const reservations: Array<string> = []
let journeys: { one: string; two: string }

const scopeOf = () => ({ tenant_id: tenant.tenant_id, sandbox: false })
const sameEitherWay = <I, O>(ask: (input: I) => Effect.Effect<O, unknown, Actor.GroupTransaction>, inputs: ReadonlyArray<I>) =>
  wave.sameEitherWay(sql, scopeOf(), ask, inputs)

const run = (contact: string, journey: string, state: Run["state"], scope: string): Run => ({
  id: randomUUID(), journey_id: journey, version: 1, contact_id: contact, scope, hotel_id: tenant.hotel_id, reservation_id: null,
  state, step_index: 0, wake_at: state === "waiting" ? Date.now() + 60_000 : null, wake_seq: 1, steps_taken: 1,
  trigger: { event_id: randomUUID(), event_name: "e.one", occurred_at: new Date().toISOString(), payload: {}, origin: "core", source: null },
  started_at: Date.now() - 1_000, ended_at: state === "waiting" ? null : Date.now(), exit_reason: state === "waiting" ? null : "completed", error: null
})

beforeAll(async () => {
  tenant = await createTenant("journeywave")
  for (let i = 0; i < 4; i++) {
    const [c] = await sql`INSERT INTO contacts (id, tenant_id, sandbox, first_name, email, language)
      VALUES (${randomUUID()}, ${tenant.tenant_id}, false, ${`Guest ${i}`}, ${`wave${i}-${Date.now()}@example.com`}, 'es') RETURNING id`
    contacts.push(c!.id as string)
  }
  // Contact 0: a stay to come and one past; contact 1: a past one only; contacts 2 and 3: none.
  for (const [contact, checkIn, status] of [[0, "2099-01-10", "confirmed"], [0, "2020-01-10", "confirmed"], [1, "2021-03-01", "confirmed"], [1, "2099-05-01", "cancelled"]] as const) {
    const [r] = await sql`INSERT INTO reservations (id, tenant_id, sandbox, hotel_id, external_id, check_in, check_out, nights, status, guest_stage, source)
      VALUES (${randomUUID()}, ${tenant.tenant_id}, false, ${tenant.hotel_id}, ${randomUUID()}, ${checkIn}, (${checkIn}::date + 2), 2, ${status}, 'pre_stay', 'api') RETURNING id`
    await sql`INSERT INTO reservation_guests (reservation_id, position, tenant_id, sandbox, contact_id, first_name)
      VALUES (${r!.id}, 0, ${tenant.tenant_id}, false, ${contacts[contact]!}, 'Guest')`
    reservations.push(r!.id as string)
  }
  const definition = (event: string) => ({ name: `Wave ${event}`, trigger: { type: "event", event }, steps: [{ id: "w", type: "wait", duration: "PT1H" }, { id: "e", type: "end" }] })
  journeys = { one: await createJourney(sql, tenant, definition("e.one")), two: await createJourney(sql, tenant, definition("e.two")) }
  // Contact 0 waits in journey one and has ended it before in another scope; contact 1 has ended journey two.
  const made = [run(contacts[0]!, journeys.one, "waiting", "s1"), run(contacts[0]!, journeys.one, "completed", "s0"), run(contacts[1]!, journeys.two, "completed", "s1")]
  const exit = await wave.inWave(sql, scopeOf(), saveRunsAndMoves({ runs: made, moves: [], now: new Date(), namespace: "tests" }))
  expect(exit._tag).toBe("Success")
  runs.push(...made.map((r) => r.id))
}, 60_000)
afterAll(() => sql.end())

describe("the journey actor's wave statements", () => {
  it("answer a wave of asks as one ask each", async () => {
    const asked = [...contacts, contacts[0]!, randomUUID()]
    const live = await sameEitherWay(liveRunsOf, asked)
    expect(live.map((l) => l.map((p) => p.run.id))).toEqual([[runs[0]], [], [], [], [runs[0]], []])
    const byId = await sameEitherWay(runsById, [...runs, randomUUID(), runs[1]!])
    expect(byId.map((p) => p?.run.state)).toEqual(["waiting", "completed", "completed", undefined, "completed"])
    const facts = await sameEitherWay(contactFactsOf, asked)
    expect(facts.map((f) => f?.first_name)).toEqual(["Guest 0", "Guest 1", "Guest 2", "Guest 3", "Guest 0", undefined])
    const hotels = await sameEitherWay(hotelFactsOf, [tenant.hotel_id, null, randomUUID(), tenant.hotel_id])
    expect(hotels.map((h) => h?.code ?? null)).toEqual([tenant.hotel_code, null, null, tenant.hotel_code])
    const stays = await sameEitherWay(reservationFactsOf, [
      { reservationId: null, contactId: contacts[0]! }, { reservationId: null, contactId: contacts[1]! }, { reservationId: null, contactId: contacts[2]! },
      { reservationId: reservations[1]!, contactId: contacts[0]! }, { reservationId: randomUUID(), contactId: contacts[3]! }
    ])
    // The stay to come before a past one; a cancelled stay never; a named reservation as named.
    expect(stays.map((s) => s?.id ?? null)).toEqual([reservations[0], reservations[2], null, reservations[1], null])
    const channels = await sameEitherWay(() => channelFactsOnce(), [1, 2, 3])
    expect(channels[0]).toEqual({ email: false, whatsapp: false, templates: [] })
  })

  it("give each signal the journeys its own event starts, with its own last entry in its own scope", async () => {
    const candidates = await sameEitherWay(candidateJourneysOf, [
      { eventName: "e.one", journeyId: undefined, contactId: contacts[0]!, runScope: "s0" },
      { eventName: "e.two", journeyId: undefined, contactId: contacts[1]!, runScope: "s1" },
      { eventName: "e.one", journeyId: undefined, contactId: contacts[2]!, runScope: "s1" },
      { eventName: "nothing", journeyId: undefined, contactId: contacts[3]!, runScope: "s1" },
      { eventName: "ignored", journeyId: journeys.two, contactId: contacts[0]!, runScope: "s1" }
    ])
    expect(candidates.map((c) => c.map((j) => [j.id, j.last_started_at !== undefined]))).toEqual([
      [[journeys.one, true]], [[journeys.two, true]], [[journeys.one, false]], [], [[journeys.two, false]]
    ])
  })
})
