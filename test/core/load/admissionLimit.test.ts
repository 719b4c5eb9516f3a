import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { AdmissionLimit, DEFAULT_ADMISSION } from "../../../core/load/admissionLimit.ts"
import { batchLoop, closedLoop, settings, simulate } from "./admissionSimulation.ts"

describe("AdmissionLimit", () => {
  it("a flood from a standing start (the initial limit) is cut within a window: every call let in is answered within 2 s", () => {
    for (const capacity of [200, 800]) {
      const run = simulate({ offered: 3 * capacity, capacity, serviceMs: 20, seconds: 10, fromMs: -1 })
      expect(run.waits[run.waits.length - 1]!, `capacity ${capacity}`).toBeLessThan(2_000)
    }
  })

  it("a closed loop of 128 clients waiting ~500 ms for a slow platform (250/s) is never refused: it queues no more than itself", () => {
    const run = closedLoop({ clients: 128, capacity: 250, serviceMs: 20, seconds: 20 })
    expect(run.refused).toBe(0)
    expect(run.completed).toBeGreaterThan(0.95 * 250 * 20)
  })

  it("a partner's batch feed (8 clients x 50 reservations) to workers slower than it is never shed: a closed loop, not a flood", () => {
    // The bench's batch phase on a slow day: 400 calls outstanding, answered in groups every 100 ms at 250/s, so a
    // limit aimed at 250/s x the target (100 calls) refused nineteen requests in twenty.
    for (const capacity of [250, 700]) {
      const run = batchLoop({ clients: 8, size: 50, capacity, groupMs: 100, seconds: 30 })
      expect(run.refused, `capacity ${capacity}`).toBe(0)
      expect(run.accepted * 50).toBeGreaterThan(0.9 * capacity * 30)
    }
  })

  it("a flood of batches (64 clients x 50) is still shed", () => {
    const run = batchLoop({ clients: 64, size: 50, capacity: 250, groupMs: 100, seconds: 30 })
    expect(run.refused).toBeGreaterThan(0)
    expect(run.accepted * 50).toBeGreaterThan(0.9 * 250 * 30)
  })

  it("at 3x what the server completes, the calls let in wait about the target and the server stays busy", () => {
    const run = simulate({ offered: 2_400, capacity: 800, serviceMs: 20, seconds: 20, tenants: 3 })
    expect(run.p99).toBeLessThan(2 * settings.targetMs)
    expect(run.throughput).toBeGreaterThan(0.95 * 800)
    expect(run.refused).toBeGreaterThan(0)
  })

  it("one tenant's flood (2,000/s) beside another's steady 100/s, at 800/s capacity: the steady one is never refused", () => {
    const run = simulate({ offered: 2_100, capacity: 800, serviceMs: 20, seconds: 20, tenantOf: (i) => i % 21 === 0 ? "steady" : "flood" })
    expect(run.refusedBy.get("steady") ?? 0).toBe(0)
    expect(run.acceptedBy.get("steady")).toBe(2_000)
    expect(run.refusedBy.get("flood")).toBeGreaterThan(0)
    expect(run.throughput).toBeGreaterThan(0.95 * 800)
  })

  it("below capacity nothing is refused", () => {
    const run = simulate({ offered: 600, capacity: 800, serviceMs: 20, seconds: 10 })
    expect(run.refused).toBe(0)
    expect(run.p99).toBeLessThan(100)
  })

  it("with nothing completing (workers away), the limit halves towards its minimum", () => {
    const limit = new AdmissionLimit(settings, 0)
    for (let now = 0; now < 10_000; now += 10) while (limit.enter("t", now) === undefined);
    expect(Math.floor(limit.limit)).toBe(settings.min)
    expect(limit.inFlight).toBeLessThanOrEqual(DEFAULT_ADMISSION.initial)
  })

  it("workers stalling under a modest load: the limit falls to its minimum within about a second, not once calls pile up to it", () => {
    const limit = new AdmissionLimit(settings, 0)
    let admitted = 0
    // 100 calls a second, none answered from t = 0 (the workers stopped).
    for (let now = 0; now < 2_000; now += 10) if (limit.enter("t", now) === undefined) admitted++
    expect(Math.floor(limit.limit)).toBe(settings.min)
    expect(admitted).toBeLessThanOrEqual(Math.ceil((1_000 + settings.windowMs) / 10))
  })

  it("a burst onto one contended row, its first answers 600 ms coming, is not taken for a stall", () => {
    const limit = new AdmissionLimit(settings, 0)
    for (let i = 0; i < 200; i++) expect(limit.enter("t", 1_000)).toBeUndefined()
    limit.leave("t", 1_600, 600)
    expect(Math.floor(limit.limit)).toBe(settings.initial)
    // Held over a second more with nothing answered: that is a stall.
    expect(limit.enter("t", 2_700)).toBe("process")
    expect(Math.floor(limit.limit)).toBe(settings.min)
  })

  it("a tenant alone may use the whole limit", () => {
    const limit = new AdmissionLimit(settings, 0)
    let held = 0
    while (limit.enter("alone", 0) === undefined) held++
    expect(held).toBe(Math.floor(limit.limit))
    expect(limit.enter("alone", 0)).toBe("process")
  })

  it("once another tenant asks, a tenant over its share is refused and the newcomer is let in, even at a full limit", () => {
    const limit = new AdmissionLimit(settings, 0)
    while (limit.enter("busy", 0) === undefined);
    expect(limit.enter("quiet", 1)).toBeUndefined()
    expect(limit.enter("busy", 2)).toBe("tenant")
    // The burst drains to its share; then the limit is shared: busy refused at its share, quiet still let in.
    for (let i = 0; limit.inFlight > limit.tenantCap() + 1; i++) limit.leave("busy", 3, 3)
    expect(limit.enter("busy", 4)).toBe("tenant")
    expect(limit.enter("quiet", 5)).toBeUndefined()
    // Long after the newcomer's last request, the busy tenant is no longer held to a share (only to the limit).
    limit.leave("quiet", 6, 5)
    limit.leave("quiet", 6, 5)
    expect(limit.refusal("busy", 10_000)).toBe(limit.inFlight >= Math.floor(limit.limit) ? "process" : undefined)
  })

  it("contended, a tenant holds at most its share", () => {
    const limit = new AdmissionLimit(settings, 0)
    expect(limit.refusal("quiet", 0)).toBeUndefined()
    let held = 0
    while (limit.enter("busy", 1) === undefined) held++
    expect(held).toBe(limit.tenantCap())
  })

  it("a call of an admitted request is never refused, and counts", () => {
    const limit = new AdmissionLimit({ ...settings, tenantShare: 1 }, 0)
    while (limit.enter("t", 0) === undefined);
    const before = limit.inFlight
    expect(limit.enter("t", 0)).toBe("process")
    expect(limit.enter("t", 0, true)).toBeUndefined()
    expect(limit.inFlight).toBe(before + 1)
  })

  it("whatever the arrivals, completions and event-loop delays: the limit stays within its bounds and places balance", () => {
    fc.assert(fc.property(
      fc.array(fc.record({ gap: fc.nat(2_000), tenant: fc.constantFrom("a", "b", "c"), leave: fc.boolean(), admitted: fc.boolean(), lagMs: fc.nat(200) }), { maxLength: 400 }),
      (steps) => {
        const limit = new AdmissionLimit(settings, 0)
        const held: Array<{ tenant: string; at: number }> = []
        let now = 0
        for (const step of steps) {
          now += step.gap
          limit.loopDelay(step.lagMs)
          const enteredBefore = limit.inFlight
          if (step.leave && held.length > 0) {
            const left = held.shift()!
            limit.leave(left.tenant, now, now - left.at)
          } else if (limit.enter(step.tenant, now, step.admitted) === undefined) {
            held.push({ tenant: step.tenant, at: now })
            if (!step.admitted) expect(enteredBefore).toBeLessThan(Math.floor(limit.limit) + 1)
          }
          expect(limit.inFlight).toBe(held.length)
          expect(limit.limit).toBeGreaterThanOrEqual(settings.min)
          expect(limit.limit).toBeLessThanOrEqual(settings.max)
        }
      }
    ))
  })
})
