import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { LeaseDeadlines } from "../../../actors/runtime/leaseDeadlines.ts"

describe("lease deadlines", () => {
  it("a lease lapses a TTL after the statement that last renewed it was sent, and is reported once", () => {
    const d = new LeaseDeadlines<string>(3_000)
    d.held("a", 1_000)
    d.held("b", 1_500)
    expect(d.lapsed(3_999)).toEqual([])
    d.held("a", 2_000)
    expect(d.lapsed(4_500)).toEqual(["b"])
    expect(d.lapsed(4_600)).toEqual([])
    d.forget("a")
    expect(d.lapsed(10_000)).toEqual([])
  })

  it("never reports a lease before its last renewal plus the TTL, always once after it (property)", () => {
    const event = fc.oneof(
      fc.record({ kind: fc.constant("held" as const), key: fc.integer({ min: 0, max: 4 }), gap: fc.integer({ min: 0, max: 2_000 }) }),
      fc.record({ kind: fc.constant("forget" as const), key: fc.integer({ min: 0, max: 4 }), gap: fc.integer({ min: 0, max: 2_000 }) }),
      fc.record({ kind: fc.constant("check" as const), key: fc.constant(0), gap: fc.integer({ min: 0, max: 2_000 }) })
    )
    fc.assert(fc.property(fc.integer({ min: 1, max: 5_000 }), fc.array(event, { maxLength: 60 }), (ttl, events) => {
      const d = new LeaseDeadlines<number>(ttl)
      const model = new Map<number, number>()
      let now = 0
      for (const e of events) {
        now += e.gap
        if (e.kind === "held") {
          d.held(e.key, now)
          model.set(e.key, now + ttl)
        } else if (e.kind === "forget") {
          d.forget(e.key)
          model.delete(e.key)
        } else {
          const expected = [...model].filter(([, until]) => now >= until).map(([k]) => k).sort()
          expect(d.lapsed(now).sort()).toEqual(expected)
          for (const k of expected) model.delete(k)
        }
      }
    }))
  })
})
