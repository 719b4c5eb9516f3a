import { describe, expect, it } from "@effect/vitest"
import { localIso } from "../../../actors/webhook/dateEventPayload.ts"

describe("scheduled_for.iso", () => {
  it("carries the hotel's offset at that instant, across zones and daylight time", () => {
    expect(localIso("2027-03-15", "15:00", new Date("2027-03-15T19:00:00Z"))).toBe("2027-03-15T15:00:00-04:00")
    expect(localIso("2027-01-15", "15:00", new Date("2027-01-15T20:00:00Z"))).toBe("2027-01-15T15:00:00-05:00")
    expect(localIso("2027-07-01", "12:00", new Date("2027-07-01T10:00:00Z"))).toBe("2027-07-01T12:00:00+02:00")
    expect(localIso("2027-07-01", "15:00", new Date("2027-07-01T09:30:00Z"))).toBe("2027-07-01T15:00:00+05:30")
    expect(localIso("2027-07-01", "12:00", new Date("2027-07-01T12:00:00Z"))).toBe("2027-07-01T12:00:00+00:00")
  })
})
