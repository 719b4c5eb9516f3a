import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { overviewRange } from "../../src/overview/range.ts"

// The overview's days from the clock: UTC, defaults, the 92-day bound and which parameter a refusal names.
const at = (iso: string, q: Parameters<typeof overviewRange>[0]) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse(iso))
    return yield* Effect.exit(overviewRange(q))
  })

describe("overviewRange", () => {
  it.effect("defaults to the 14 UTC days ending today, whatever the hour", () =>
    Effect.gen(function*() {
      const r = yield* at("2026-11-27T23:59:59.999Z", {})
      expect(r).toEqual(Exit.succeed({ from: "2026-11-14", to: "2026-11-27", start: "2026-11-14T00:00:00.000Z", end: "2026-11-28T00:00:00.000Z", hotel_id: undefined }))
    }))

  it.effect("takes from alone as the first of 14 days, never past today", () =>
    Effect.gen(function*() {
      const early = yield* at("2026-11-27T10:00:00Z", { from: "2026-10-01" })
      expect(Exit.isSuccess(early) && [early.value.from, early.value.to]).toEqual(["2026-10-01", "2026-10-14"])
      const recent = yield* at("2026-11-27T10:00:00Z", { from: "2026-11-25" })
      expect(Exit.isSuccess(recent) && [recent.value.from, recent.value.to]).toEqual(["2026-11-25", "2026-11-27"])
      const back = yield* at("2026-11-27T10:00:00Z", { to: "2026-03-01" })
      expect(Exit.isSuccess(back) && [back.value.from, back.value.to]).toEqual(["2026-02-16", "2026-03-01"])
    }))

  it.effect("allows 92 days, refuses 93 naming from and to, and a reversed range naming to", () =>
    Effect.gen(function*() {
      expect(Exit.isSuccess(yield* at("2026-11-27T10:00:00Z", { from: "2026-01-01", to: "2026-04-02" }))).toBe(true)
      const long = yield* at("2026-11-27T10:00:00Z", { from: "2026-01-01", to: "2026-04-03" })
      expect(JSON.stringify(long)).toContain("INVALID_RANGE")
      expect(JSON.stringify(long)).toMatch(/"from":\[.*"to":\[/)
      const reversed = yield* at("2026-11-27T10:00:00Z", { from: "2026-04-03", to: "2026-04-02" })
      expect(JSON.stringify(reversed)).toMatch(/"details":\{"to":/)
      expect(Exit.isSuccess(yield* at("2026-11-27T10:00:00Z", { from: "2026-04-02", to: "2026-04-02" }))).toBe(true)
    }))

  it.effect("refuses malformed dates and hotel ids with 400 naming each", () =>
    Effect.gen(function*() {
      for (const [q, name] of [[{ from: "2026-02-30" }, "from"], [{ to: "27/11/2026" }, "to"], [{ hotel_id: "x" }, "hotel_id"]] as const) {
        const exit = yield* at("2026-11-27T10:00:00Z", q)
        expect(JSON.stringify(exit), name).toContain(`"details":{"${name}"`)
        expect(JSON.stringify(exit), name).toContain("VALIDATION_ERROR")
      }
    }))
})
