import { describe, expect, it } from "@effect/vitest"
import { secondsBetween, storedOutcome } from "../../../core/normalise/call.ts"

describe("call facts", () => {
  it("stores no_answer and voicemail as missed and derives non-negative durations", () => {
    expect(["no_answer", "Voicemail", "completed", "transferred"].map(storedOutcome)).toEqual(["missed", "missed", "completed", "transferred"])
    expect(secondsBetween("2026-01-01T00:00:00Z", "2026-01-01T00:01:30Z")).toBe(90)
    expect(secondsBetween("2026-01-01T00:01:00Z", "2026-01-01T00:00:00Z")).toBe(0)
  })
})
