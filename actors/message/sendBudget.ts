import type { Tx } from "../../core/db/Database.ts"

// The tenant's per-minute send budget per channel, shared by every worker through one counter row per bucket and
// minute (rate_counters). Taken in blocks: every claim incrementing the one row serialised the deliverer on its lock
// (the broadcast bench's 136 emails/s), so a worker takes up to BLOCK sends of the minute with one statement and
// hands them to its own attempts. A block is taken only whole within the limit (the limit is never exceeded); sends
// of a block unused when its minute ends, or taken by a claim that then rolls back, are given up (fewer sends, never
// more). A small limit takes one at a time, so no worker sits on budget another could use.
//
// The grant runs in the claim's own transaction: on a connection of its own it waited for the pool while every
// connection was a claim waiting for its grant (the deliverer stalled at 26 emails/s). A claim takes its whole batch's
// sends with one take: its grant locks the bucket's row until the claim commits, so a second take of the same
// transaction, queued in this process behind another claim's take that waits for that lock, would never return.

const BLOCK = 20
/** Limits below this take single sends: a block may hold at most a hundredth of the minute's budget. */
const blockFor = (limit: number) => Math.max(1, Math.min(BLOCK, Math.floor(limit / 100)))

export interface SendBudget {
  /** Takes up to `n` sends of `bucket`'s minute; answers how many (0: none is left this minute). `nowMs`: the worker's Clock. */
  readonly take: (tx: Tx, bucket: string, limit: number, nowMs: number, n?: number) => Promise<number>
}

export const makeSendBudget = (): SendBudget => {
  const held = new Map<string, { windowEndMs: number; left: number }>()
  /** Adds `n` to the minute's count if it stays within the limit. */
  const grant = async (tx: Tx, bucket: string, n: number, limit: number): Promise<number | undefined> => {
    const [row] = await tx<Array<{ window_ms: number }>>`
      INSERT INTO rate_counters (bucket, window_start, count) VALUES (${bucket}, date_trunc('minute', now()), ${n})
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + ${n} WHERE rate_counters.count + ${n} <= ${limit}
      RETURNING (extract(epoch FROM window_start) * 1000)::float8 AS window_ms`
    return row?.window_ms
  }
  const takeNow = async (tx: Tx, bucket: string, limit: number, nowMs: number, n: number): Promise<number> => {
    const mine = held.get(bucket)
    const got = mine !== undefined && nowMs < mine.windowEndMs ? Math.min(mine.left, n) : 0
    if (got > 0) mine!.left -= got
    const need = n - got
    if (need === 0) return got
    // What is still needed in whole blocks (the surplus held for the next claims); near the limit, where that no
    // longer fits, exactly what is needed; then what is left, one send at a time.
    const block = blockFor(limit)
    for (const ask of new Set([Math.ceil(need / block) * block, need, 1])) {
      const window = await grant(tx, bucket, ask, limit)
      if (window === undefined) continue
      const used = Math.min(ask, need)
      held.set(bucket, { windowEndMs: window + 60_000, left: ask - used })
      return got + used
    }
    return got
  }
  // One take of a bucket at a time in this process: the attempts arriving while a block is being granted use that
  // block, rather than each granting its own and leaving the rest unused.
  const queues = new Map<string, Promise<unknown>>()
  return {
    take: (tx, bucket, limit, nowMs, n = 1) => {
      const next = (queues.get(bucket) ?? Promise.resolve()).then(() => takeNow(tx, bucket, limit, nowMs, n))
      const settled = next.catch(() => undefined)
      queues.set(bucket, settled)
      void settled.then(() => {
        if (queues.get(bucket) === settled) queues.delete(bucket)
      })
      return next
    }
  }
}
