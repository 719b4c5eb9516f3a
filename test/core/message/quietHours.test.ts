import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { instantAtWall, isQuiet, quietHoursEnd, wallOf } from "../../../core/message/quietHours.ts"

// Quiet hours end in the recipient's zone. The properties hold in zones with and without daylight saving, with
// windows across midnight and within a day, and with windows whose end falls in a DST gap or a repeated hour.

const ZONES = ["UTC", "Europe/Madrid", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "Australia/Lord_Howe", "America/Santiago", "Pacific/Chatham"]
const hhmm = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`)
const window = fc.record({ from: hhmm, to: hhmm })
// 2020 to 2035, any millisecond: every DST change of those years is in range.
const instant = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) })
const zone = fc.constantFrom(...ZONES)
const at = (iso: string) => Date.parse(iso)

describe("quiet hours", () => {
  it("the end is never inside the window, is now when outside, and nothing between now and it is outside", () => {
    fc.assert(fc.property(instant, window, zone, (now, w, tz) => {
      const end = quietHoursEnd(now, w, tz)
      expect(end).toBeGreaterThanOrEqual(now)
      expect(isQuiet(end, w, tz)).toBe(false)
      if (!isQuiet(now, w, tz)) expect(end).toBe(now)
      else {
        // Held no longer than a day (plus a DST hour), and quiet all the way up to the end (sampled each 10 minutes).
        expect(end - now).toBeLessThanOrEqual(25 * 3_600_000)
        for (let t = now; t < end; t += 600_000) expect(isQuiet(t, w, tz)).toBe(true)
        expect(isQuiet(end - 1, w, tz)).toBe(true)
      }
    }), { numRuns: 500 })
  })

  it("a window across midnight holds the evening until the next morning and the small hours until that morning", () => {
    const w = { from: "21:00", to: "09:00" }
    expect(new Date(quietHoursEnd(at("2026-06-10T21:30:00Z"), w, "UTC")).toISOString()).toBe("2026-06-11T09:00:00.000Z")
    expect(new Date(quietHoursEnd(at("2026-06-10T03:00:00Z"), w, "UTC")).toISOString()).toBe("2026-06-10T09:00:00.000Z")
    expect(quietHoursEnd(at("2026-06-10T12:00:00Z"), w, "UTC")).toBe(at("2026-06-10T12:00:00Z"))
    // Madrid in summer is UTC+2: 22:00 local is 20:00Z, held until 09:00 local = 07:00Z next day.
    expect(new Date(quietHoursEnd(at("2026-06-10T20:00:00Z"), w, "Europe/Madrid")).toISOString()).toBe("2026-06-11T07:00:00.000Z")
    // `to` is exclusive, `from` inclusive.
    expect(quietHoursEnd(at("2026-06-10T09:00:00Z"), w, "UTC")).toBe(at("2026-06-10T09:00:00Z"))
    expect(quietHoursEnd(at("2026-06-10T21:00:00Z"), w, "UTC")).toBe(at("2026-06-11T09:00:00Z"))
  })

  it("a window within a day holds until its end that day", () => {
    const w = { from: "13:00", to: "16:30" }
    expect(new Date(quietHoursEnd(at("2026-01-10T14:00:00Z"), w, "Asia/Kolkata")).toISOString()).toBe("2026-01-10T14:00:00.000Z")
    // 14:00Z is 19:30 in Kolkata (outside); 09:00Z is 14:30 (inside), held until 16:30 local = 11:00Z.
    expect(new Date(quietHoursEnd(at("2026-01-10T09:00:00Z"), w, "Asia/Kolkata")).toISOString()).toBe("2026-01-10T11:00:00.000Z")
  })

  it("across a DST change the end is the local end time in the new offset", () => {
    const w = { from: "21:00", to: "09:00" }
    // Madrid springs forward on 2026-03-29 (02:00 CET -> 03:00 CEST): 09:00 local that morning is 07:00Z.
    expect(new Date(quietHoursEnd(at("2026-03-28T22:00:00Z"), w, "Europe/Madrid")).toISOString()).toBe("2026-03-29T07:00:00.000Z")
    // New York falls back on 2026-11-01: 09:00 EST that morning is 14:00Z.
    expect(new Date(quietHoursEnd(at("2026-11-01T02:00:00Z"), w, "America/New_York")).toISOString()).toBe("2026-11-01T14:00:00.000Z")
  })

  it("an end inside a DST gap is the gap's end; an end in a repeated hour is its first occurrence", () => {
    // Madrid 2026-03-29: 02:30 does not exist; a window ending then ends at 03:00 CEST (01:00Z).
    const gap = { from: "22:00", to: "02:30" }
    expect(new Date(quietHoursEnd(at("2026-03-28T22:00:00Z"), gap, "Europe/Madrid")).toISOString()).toBe("2026-03-29T01:00:00.000Z")
    expect(instantAtWall(Date.UTC(2026, 2, 29, 2, 30), "Europe/Madrid")).toBe(at("2026-03-29T01:00:00Z"))
    // Madrid 2026-10-25: 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET); the first is the end.
    const repeated = { from: "22:00", to: "02:30" }
    expect(new Date(quietHoursEnd(at("2026-10-24T21:00:00Z"), repeated, "Europe/Madrid")).toISOString()).toBe("2026-10-25T00:30:00.000Z")
    expect(wallOf(at("2026-10-25T01:30:00Z"), "Europe/Madrid")).toBe(Date.UTC(2026, 9, 25, 2, 30))
  })

  it("an empty or malformed window holds nothing", () => {
    const now = at("2026-06-10T22:00:00Z")
    expect(quietHoursEnd(now, { from: "21:00", to: "21:00" }, "UTC")).toBe(now)
    expect(quietHoursEnd(now, { from: "9pm", to: "09:00" }, "UTC")).toBe(now)
    expect(quietHoursEnd(now, { from: "24:00", to: "09:00" }, "UTC")).toBe(now)
  })
})
