import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { partitionOf } from "../../streams/partition.ts"
import { decode, encode } from "../../streams/envelope.ts"

describe("partitionOf", () => {
  it("is stable and within range for any tenant, key and partition count", () => {
    fc.assert(fc.property(fc.uuid(), fc.string(), fc.integer({ min: 1, max: 1024 }), (tenant, key, p) => {
      const a = partitionOf(tenant, key, p)
      expect(a).toBe(partitionOf(tenant, key, p))
      expect(Number.isInteger(a) && a >= 0 && a < p).toBe(true)
    }))
  })

  it("separates the same key of two tenants (the tenant is part of the hash)", () => {
    const hits = Array.from({ length: 200 }, (_, i) => partitionOf("tenant-a", `R${i}`, 64) === partitionOf("tenant-b", `R${i}`, 64))
    expect(hits.filter(Boolean).length).toBeLessThan(20)
  })

  it("spreads keys evenly enough: no partition gets twice its share over 64,000 keys", () => {
    const counts = new Array<number>(64).fill(0)
    for (let i = 0; i < 64_000; i++) counts[partitionOf("t", `reservation-${i}`, 64)]!++
    expect(Math.max(...counts)).toBeLessThan(2_000)
    expect(Math.min(...counts)).toBeGreaterThan(500)
  })
})

describe("envelope codec", () => {
  // msgpackr deliberately renames a "__proto__" key (prototype-pollution guard); such keys are not round-tripped.
  const noProto = (v: unknown) => !JSON.stringify(v ?? null).includes('"__proto__"')
  it("round-trips any JSON payload as JSON would", () => {
    fc.assert(fc.property(fc.jsonValue().filter(noProto), (payload) => {
      // Payloads come from JSON bodies, so JSON's own view is the reference (it has no -0, for one).
      expect(decode(encode({ id: "x", payload }))).toEqual(JSON.parse(JSON.stringify({ id: "x", payload })))
    }))
  })
})
