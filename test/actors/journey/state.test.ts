import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { onSignal } from "../../../actors/journey/decide.ts"
import type { JourneySignal } from "../../../actors/journey/protocol.ts"
import type { StepFacts } from "../../../actors/journey/facts.ts"
import { isLive, type Run } from "../../../actors/journey/run.ts"
import { type Advanced, finish, wake } from "../../../actors/journey/state.ts"
import { type CandidateJourney, scopeOf } from "../../../actors/journey/triggers.ts"
import type { JourneyDefinition, JourneyStatus } from "../../../schemas/journey.ts"

// Model-based: random journeys and random sequences of signals, wakes (current and stale), manual stops, pauses and
// clock moves, applied to one contact exactly as the journey actor applies them, with the invariants checked after
// every command.

const TRIGGERS = ["cart.abandoned", "x.visited"] as const
const NAMES = ["cart.abandoned", "x.visited", "checkout.completed", "booking.created"] as const

const stepsArb = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc.tuple(...Array.from({ length: n }, (_, i) => {
    const forward = fc.constantFrom(...[...Array.from({ length: n - i - 1 }, (_, k) => `s${i + 1 + k}`), "end"])
    return fc.oneof(
      fc.integer({ min: 1, max: 20 }).map((sec) => ({ id: `s${i}`, type: "wait" as const, duration: `PT${sec}S` })),
      fc.constantFrom("marketing", "utility").map((category) => ({ id: `s${i}`, type: "email" as const, category, subject: "Hi {{contact_first_name}}", text: "x" })),
      fc.constant({ id: `s${i}`, type: "whatsapp" as const, category: "utility" as const, template: "t", language: "es", params: ["contact.first_name"] }),
      fc.tuple(forward, forward).map(([then, otherwise]) => ({ id: `s${i}`, type: "branch" as const, if: { consent: "email_marketing" as const }, then, else: otherwise })),
      fc.constant({ id: `s${i}`, type: "end" as const })
    )
  })))

const definitionArb: fc.Arbitrary<JourneyDefinition> = fc.record({
  name: fc.constant("j"),
  trigger: fc.record({
    type: fc.constant("event" as const),
    event: fc.constantFrom(...TRIGGERS),
    stop_when: fc.subarray(["checkout.completed", "x.visited"]),
    stop_on_booking: fc.boolean(),
    reentry: fc.constantFrom("never" as const, "always" as const, { after: "PT30S" })
  }),
  steps: stepsArb
}) as fc.Arbitrary<JourneyDefinition>

type Command =
  | { readonly kind: "signal"; readonly name: string; readonly cart: number; readonly origin: "core" | "website" | "booking"; readonly status: string }
  | { readonly kind: "wake"; readonly pick: number; readonly stale: boolean }
  | { readonly kind: "stop"; readonly pick: number }
  | { readonly kind: "status"; readonly journey: number; readonly status: JourneyStatus }
  | { readonly kind: "tick"; readonly ms: number }

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("signal" as const), name: fc.constantFrom(...NAMES), cart: fc.integer({ min: 0, max: 2 }), origin: fc.constantFrom("core" as const, "website" as const, "booking" as const), status: fc.constantFrom("confirmed", "cancelled") }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant("wake" as const), pick: fc.nat(), stale: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("stop" as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("status" as const), journey: fc.nat(), status: fc.constantFrom("active" as const, "active" as const, "paused" as const, "archived" as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 25_000 }) }), weight: 3 }
)

const facts = (now: number, journeyStatus: JourneyStatus, consent: boolean): StepFacts => ({
  now, journeyStatus,
  contact: { first_name: "Ana", last_name: null, email: "a@b.co", phone: null, language: "es", email_consent: consent, whatsapp_marketing_consent: null },
  hotel: null, reservation: null,
  channels: { email: true, whatsapp: true, templates: [{ name: "t", language: "es", category: "utility", body_parameters: 1 }] },
  messageId: (r, s) => `${r}:${s}`
})

describe("the journey state machine (model-based)", () => {
  it("never sends after a stop, keeps one live run per journey and scope, and only moves wake sequences forward", () => {
    const seen = { sends: 0, stops: 0, wakes: 0, starts: 0 }
    fc.assert(fc.property(fc.array(definitionArb, { minLength: 1, maxLength: 3 }), fc.array(commandArb, { minLength: 20, maxLength: 80 }), fc.boolean(), (defs, commands, consent) => {
      const journeys = defs.map((definition, i) => ({ id: `j${i}`, version: 1, hotel_ids: [] as Array<string>, definition, status: "active" as JourneyStatus }))
      const runs = new Map<string, Run>()
      const ended = new Set<string>()
      const sent = new Set<string>()
      let now = 1_000_000
      let ids = 0
      let events = 0

      const apply = (results: ReadonlyArray<Advanced>) => {
        for (const r of results) {
          for (const m of r.moves) {
            if (m.kind !== "send") continue
            expect(ended.has(m.run.id), `send for ended run ${m.run.id}`).toBe(false)
            expect(sent.has(m.message_id), `message ${m.message_id} sent twice`).toBe(false)
            sent.add(m.message_id)
            seen.sends++
          }
          const before = runs.get(r.run.id)
          if (before !== undefined) {
            expect(r.run.wake_seq).toBeGreaterThanOrEqual(before.wake_seq)
            expect(r.run.steps_taken).toBeGreaterThanOrEqual(before.steps_taken)
          }
          const seqs = r.moves.flatMap((m) => (m.kind === "step" ? [m.seq] : []))
          seqs.forEach((seq, k) => expect(seq).toBe((before?.steps_taken ?? 0) + k + 1))
          runs.set(r.run.id, r.run)
          if (!isLive(r.run)) ended.add(r.run.id)
          if (r.run.state === "stopped" && before !== undefined && isLive(before)) seen.stops++
        }
        const live = [...runs.values()].filter(isLive).map((r) => `${r.journey_id}/${r.scope}`)
        expect(new Set(live).size, "one live run per journey and scope").toBe(live.length)
      }

      for (const c of commands) {
        const all = [...runs.values()]
        if (c.kind === "tick") now += c.ms
        else if (c.kind === "status") journeys[c.journey % journeys.length]!.status = c.status
        else if (c.kind === "stop" && all.length > 0) {
          const run = all[c.pick % all.length]!
          if (isLive(run)) apply([finish(run, "stopped", now, "manual")])
        } else if (c.kind === "wake" && all.length > 0) {
          // Mostly a waiting run (as the sweep picks them), sometimes any; the clock moves to its wake time.
          const waiting = all.filter((r) => r.state === "waiting")
          const pool = waiting.length > 0 && c.pick % 4 !== 0 ? waiting : all
          const run = pool[c.pick % pool.length]!
          const seq = c.stale ? run.wake_seq - 1 : run.wake_seq
          if (run.wake_at !== null) now = Math.max(now, run.wake_at)
          // The actor's guard: a wake for a run not waiting, or for an older wait, changes nothing.
          if (run.state === "waiting" && run.wake_seq === seq) {
            const j = journeys.find((x) => x.id === run.journey_id)!
            seen.wakes++
            apply([wake(run, j.definition, facts(now, j.status, consent))])
          }
        } else if (c.kind === "signal") {
          const s: JourneySignal = {
            contact_id: "c", event_id: `e${++events}`, event_name: c.name, occurred_at: new Date(now).toISOString(),
            payload: { context: { cart_id: `cart${c.cart}` } }, origin: c.origin, source: null, hotel_id: null,
            reservation_id: c.origin === "booking" ? `r${events}` : null, starts: true
          }
          const definitionOf = (id: string) => journeys.find((j) => j.id === id)!.definition
          const live = all.filter(isLive).map((run) => ({ run, definition: definitionOf(run.journey_id) }))
          // As the repository reads them: active journeys of the event, each with the contact's last entry in the scope.
          const scope = scopeOf(s)
          const candidates: Array<CandidateJourney & { last_started_at?: number }> = journeys
            .filter((j) => j.status === "active" && j.definition.trigger.type === "event" && j.definition.trigger.event === c.name)
            .map((j) => {
              const entries = all.filter((r) => r.journey_id === j.id && r.scope === scope).map((r) => r.started_at)
              return entries.length === 0 ? j : { ...j, last_started_at: Math.max(...entries) }
            })
          now += 1
          const decision = onSignal({
            signal: s, live, candidates,
            booking: c.origin === "booking" ? { reservation_id: s.reservation_id!, status: c.status, hotel_id: "h", created_at: now } : null,
            now, facts: facts(now, "active", consent), newId: () => `run${++ids}`
          })
          seen.starts += decision.started.length
          apply(decision.results)
        }
      }
    }), { numRuns: 300 })
    // The generators reach every path the invariants are about, many times over.
    for (const [k, v] of Object.entries(seen)) expect(v, `${k}: ${JSON.stringify(seen)}`).toBeGreaterThan(100)
  })
})
