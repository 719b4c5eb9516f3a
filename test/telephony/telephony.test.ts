import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { callerClaim } from "../../src/telephony/caller.ts"
import { canonicalPayload, snakeCase } from "../../src/telephony/payload.ts"
import { capTranscript, MAX_CHARS, MAX_TURNS, splitTranscriptText } from "../../src/telephony/transcript.ts"

describe("CTI payload canonicalisation", () => {
  it("reads camelCase as snake_case and merges `data` over the top level", () => {
    expect(snakeCase("fromNumber")).toBe("from_number")
    expect(canonicalPayload({ eventType: "call_ringing", data: { callId: "c1", FromNumber: "+1" }, callId: "c0" }))
      .toEqual({ event_type: "call_ringing", call_id: "c1", from_number: "+1" })
    expect(canonicalPayload({ event: "call_completed", caller: { firstName: "A" }, transcript: [{ offsetMs: 5, speaker: "g", text: "t" }] }))
      .toEqual({ event: "call_completed", caller: { first_name: "A" }, transcript: [{ offset_ms: 5, speaker: "g", text: "t" }] })
  })
})

describe("transcripts", () => {
  it("splits Guest:/Agent: lines into turns only when two or more are found", () => {
    expect(splitTranscriptText("Guest: hi\nAgent: hello")).toEqual([{ speaker: "guest", text: "hi" }, { speaker: "agent", text: "hello" }])
    expect(splitTranscriptText("Guest: only one line here")).toEqual([{ speaker: "unknown", text: "Guest: only one line here" }])
    expect(splitTranscriptText("   ")).toEqual([])
  })

  it("never keeps more than 500 turns or 200,000 characters, and says when it cut", () => {
    fc.assert(fc.property(
      fc.array(fc.record({ speaker: fc.constantFrom("guest", "agent"), text: fc.string({ maxLength: 3000 }) }), { maxLength: 700 }),
      (turns) => {
        const { turns: out, truncated } = capTranscript(turns)
        const chars = out.reduce((n, t) => n + [...t.text].length, 0)
        expect(out.length).toBeLessThanOrEqual(MAX_TURNS)
        expect(chars).toBeLessThanOrEqual(MAX_CHARS)
        const total = turns.reduce((n, t) => n + [...t.text].length, 0)
        expect(truncated).toBe(turns.length > MAX_TURNS || total > MAX_CHARS)
      }
    ), { numRuns: 50 })
  })
})

describe("caller claims", () => {
  it("refuses carrier labels and placeholders as names, and splits a full name", () => {
    for (const label of ["WIRELESS CALLER", "Unknown", "anonymous", "CELL PHONE   MA", "V1234567", "+34 600 000 000", "Private Number", "n/a", "TX CELL"]) {
      expect(callerClaim({ name: label })).toBeUndefined()
    }
    expect(callerClaim({ name: "  Juan  Carlos Pérez " })).toEqual({ first_name: "Juan", last_name: "Carlos Pérez", email: undefined })
    expect(callerClaim({ name: "Unknown", email: "Juan@Gmail.com" })).toEqual({ first_name: undefined, last_name: undefined, email: "juan@gmail.com" })
    expect(callerClaim({ email: "noreply@booking.com" })).toBeUndefined()
  })
})
