import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { CallFacts } from "../../../actors/telephony/protocol.ts"
import { mergeCall, transcriptArrived } from "../../../actors/telephony/state.ts"

const facts = fc.record({
  summary: fc.option(fc.string(), { nil: undefined }),
  duration_seconds: fc.option(fc.nat(), { nil: undefined }),
  recording_url: fc.option(fc.webUrl(), { nil: undefined }),
  metadata: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.integer()), { nil: undefined })
}) as fc.Arbitrary<CallFacts>

describe("call state", () => {
  it("a field that was stored is never erased by a later message, and the last sent value wins", () => {
    fc.assert(fc.property(fc.array(facts, { minLength: 1, maxLength: 10 }), (messages) => {
      let call = undefined as ReturnType<typeof mergeCall> | undefined
      for (const m of messages) call = mergeCall(call, "id", m, "2026-01-01T00:00:00Z")
      for (const key of ["summary", "duration_seconds", "recording_url"] as const) {
        const last = [...messages].reverse().find((m) => m[key] !== undefined)
        expect(call![key]).toEqual(last === undefined ? null : last[key])
      }
      // metadata: the first value of each key is kept
      const firstSeen: Record<string, number> = {}
      for (const m of messages) for (const [k, v] of Object.entries(m.metadata ?? {})) if (!(k in firstSeen)) firstSeen[k] = v as number
      expect(call!.metadata).toEqual(firstSeen)
      expect(call!.version).toBe(messages.length)
    }))
  })

  it("remembers the first transcript's arrival once", () => {
    const t = [{ speaker: "guest", text: "hi" }]
    const a = mergeCall(undefined, "id", { summary: "x" }, "t0")
    const b = mergeCall(a, "id", { transcript: t }, "t1")
    const c = mergeCall(b, "id", { transcript: t }, "t2")
    expect([transcriptArrived(undefined, a), transcriptArrived(a, b), transcriptArrived(b, c)]).toEqual([false, true, false])
    expect(c.transcript_received_at).toBe("t1")
  })
})
