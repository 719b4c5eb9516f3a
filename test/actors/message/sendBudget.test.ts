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
  return results.filter(Boolean).length
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
    expect(await inTx((tx) => a.take(tx, bucket, 3, now))).toBe(true)
    expect(await inTx((tx) => b.take(tx, bucket, 3, now))).toBe(true)
    expect(await inTx((tx) => b.take(tx, bucket, 3, now))).toBe(true)
    expect(await inTx((tx) => a.take(tx, bucket, 3, now))).toBe(false)
  })

  it("gives up a block's unused sends when its minute is over (never spent in the next one)", async () => {
    const bucket = `test:${randomUUID()}`
    const worker = makeSendBudget()
    const now = Date.now()
    expect(await inTx((tx) => worker.take(tx, bucket, 100_000, now))).toBe(true) // a block of 20 taken, 19 held
    await sql`UPDATE rate_counters SET window_start = window_start - interval '2 minutes' WHERE bucket = ${bucket}`
    expect(await inTx((tx) => worker.take(tx, bucket, 100_000, now + 120_000))).toBe(true)
    const rows = await sql`SELECT count::int AS n FROM rate_counters WHERE bucket = ${bucket} ORDER BY window_start`
    expect(rows.map((r) => r.n)).toEqual([20, 20])
  })
})
