import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { advances, isStopKeyword, type ReportedStatus, serviceWindowOpen } from "../../../actors/message/state.ts"

describe("reported statuses", () => {
  const reported = fc.constantFrom<ReportedStatus>("sent", "delivered", "read", "failed")
  const apply = (start: string, reports: ReadonlyArray<ReportedStatus>) =>
    reports.reduce((s, r) => (advances(s, r) ? r : s), start)
  const RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 }

  it("never move backwards, whatever order they arrive in", () => {
    fc.assert(fc.property(fc.array(reported, { maxLength: 8 }), (reports) => {
      let s = "queued"
      for (const r of reports) {
        const next = advances(s, r) ? r : s
        if (next !== "failed" && s !== "failed") expect(RANK[next]!).toBeGreaterThanOrEqual(RANK[s]!)
        s = next
      }
    }))
  })

  it("end in the highest status reached, in any arrival order (failed only over queued or sent)", () => {
    fc.assert(fc.property(fc.shuffledSubarray(["sent", "delivered", "read"] as Array<ReportedStatus>, { minLength: 1 }), (reports) => {
      const highest = reports.reduce((a, b) => (RANK[b]! > RANK[a]! ? b : a))
      expect(apply("queued", reports)).toBe(highest)
      expect(apply("queued", [...reports].reverse())).toBe(highest)
    }))
    expect(apply("queued", ["read", "delivered"])).toBe("read")
    expect(apply("sent", ["failed"])).toBe("failed")
    expect(apply("delivered", ["failed"])).toBe("delivered")
    expect(apply("failed", ["read"])).toBe("failed")
    expect(apply("skipped", ["sent"])).toBe("skipped")
  })
})

describe("a guest's reply", () => {
  it("opts out on a stop word alone, in the guests' languages, case, accents and punctuation aside", () => {
    for (const t of ["STOP", "stop", "Stop.", " baja ", "BAJA!", "Arrêt", "STOPP", "Darme de baja", "unsubscribe"]) expect(isStopKeyword(t), t).toBe(true)
    for (const t of ["don't stop", "Stop sending me the offers please?", "Hola", "", "stopover"]) expect(isStopKeyword(t), t).toBe(false)
    expect(isStopKeyword(undefined)).toBe(false)
  })

  it("opens the 24-hour window", () => {
    const now = new Date("2026-11-22T12:00:00Z")
    expect(serviceWindowOpen(new Date("2026-11-21T12:00:01Z"), now)).toBe(true)
    expect(serviceWindowOpen(new Date("2026-11-21T12:00:00Z"), now)).toBe(false)
    expect(serviceWindowOpen(null, now)).toBe(false)
  })
})
