import { afterAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { makeSendBudget } from "../../../actors/message/sendBudget.ts"
import { testSql } from "../../support/platform.ts"
import type { Tx } from "../../../core/db/Database.ts"

// The send budget shared by workers through rate_counters: two budgets (two workers) over one bucket never give more
// than the minute's limit together, take whole blocks when the limit is large and single sends when it is small.

const sql = testSql()
afterAll(() => sql.end())
const inTx = <A>(f: (tx: Tx) => Promise<A>) => sql.begin(f) as Promise<A>

const takeAll = async (budgets: ReadonlyArray<ReturnType<typeof makeSendBudget>>, bucket: string, limit: number, tries: number, nowMs: number) => {
  const results = await Promise.all(Array.from({ length: tries }, (_, i) => sql.begin((tx) => budgets[i % budgets.length]!.take(tx, bucket, limit, nowMs))))
  return results.reduce((a, b) => a + b, 0)
}

describe("the send budget", () => {
  it("gives exactly the minute's limit across workers, in blocks for a large limit", async () => {
    const bucket = `test:${randomUUID()}`
    const workers = [makeSendBudget(), makeSendBudget()]
    const now = Date.now()
    expect(await takeAll(workers, bucket, 2_510, 3_000, now)).toBe(2_510)
    const [row] = await sql`SELECT sum(count)::int AS n, count(*)::int AS windows FROM rate_counters WHERE bucket = ${bucket}`
    // Within one minute (a run crossing a minute boundary may have two windows, each within its limit).
    if (row!.windows === 1) expect(row!.n).toBe(2_510)
  })

  it("takes single sends for a small limit, so no worker sits on budget another could use", async () => {
    const bucket = `test:${randomUUID()}`
    const [a, b] = [makeSendBudget(), makeSendBudget()]
    const now = Date.now()
    expect(await inTx((tx) => a.take(tx, bucket, 3, now))).toBe(1)
    expect(await inTx((tx) => b.take(tx, bucket, 3, now))).toBe(1)
    expect(await inTx((tx) => b.take(tx, bucket, 3, now))).toBe(1)
    expect(await inTx((tx) => a.take(tx, bucket, 3, now))).toBe(0)
  })

  it("gives up a block's unused sends when its minute is over (never spent in the next one)", async () => {
    const bucket = `test:${randomUUID()}`
    const worker = makeSendBudget()
    const now = Date.now()
    expect(await inTx((tx) => worker.take(tx, bucket, 100_000, now))).toBe(1) // a block of 20 taken, 19 held
    await sql`UPDATE rate_counters SET window_start = window_start - interval '2 minutes' WHERE bucket = ${bucket}`
    expect(await inTx((tx) => worker.take(tx, bucket, 100_000, now + 120_000))).toBe(1)
    const rows = await sql`SELECT count::int AS n FROM rate_counters WHERE bucket = ${bucket} ORDER BY window_start`
    expect(rows.map((r) => r.n)).toEqual([20, 20])
  })

  it("gives a claim's batch what fits in one take: whole blocks, else what it needs, else one at a time near the limit", async () => {
    const bucket = `test:${randomUUID()}`
    const [a, b] = [makeSendBudget(), makeSendBudget()]
    const now = Date.now()
    expect(await inTx((tx) => a.take(tx, bucket, 5_000, now, 32))).toBe(32) // two blocks of 20: 8 held
    expect(await inTx((tx) => a.take(tx, bucket, 5_000, now, 8))).toBe(8) // from what it held, no statement
    const small = `test:${randomUUID()}`
    expect(await inTx((tx) => b.take(tx, small, 50, now, 32))).toBe(32) // a block of 1: exactly what it needs
    expect(await inTx((tx) => b.take(tx, small, 50, now, 32))).toBe(1) // 18 left of 50: one at a time
    const counts = await sql`SELECT bucket, count::int AS n FROM rate_counters WHERE bucket IN (${bucket}, ${small}) ORDER BY bucket = ${bucket} DESC`
    expect(counts.map((r) => r.n)).toEqual([40, 33])
  })

  it("lets two claims' transactions take one bucket's sends at once: the second waits for the first's commit, never for ever", async () => {
    const bucket = `test:${randomUUID()}`
    const worker = makeSendBudget()
    const now = Date.now()
    // Each claim takes once for its batch and then goes on to commit; the second's grant waits for the first's row lock.
    const claim = () => inTx(async (tx) => {
      const n = await worker.take(tx, bucket, 100_000, now, 32)
      await new Promise((r) => setTimeout(r, 50))
      return n
    })
    expect(await Promise.all([claim(), claim(), claim()])).toEqual([32, 32, 32])
  })
})
