import { Context, Effect, Layer } from "effect"
import { Database, type Sql } from "../../core/db/Database.ts"
import { databaseFailure } from "../../core/db/DatabaseFailure.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { type Decision, decide, type WindowCounts, WINDOW_MS, windowStartOf } from "./slidingWindow.ts"

export type RateDecision = Decision

interface Bucket {
  windowStart: number
  /** Cluster totals as of the last sync. */
  globalCurrent: number
  globalPrevious: number
  /** Counted here since the last sync. */
  unsynced: number
  touched: number
}

const SYNC_MS = 500

/**
 * Per-bucket limits that hold across every ingress process. Each process decides locally from the cluster's counts
 * as of its last sync plus its own unsynced requests, and every half second adds its counts to PostgreSQL and reads
 * the totals back. Accuracy: a burst can overshoot the limit by at most what the other processes admit within one
 * sync interval.
 */
export class RateLimiter extends Context.Service<RateLimiter, {
  readonly take: (bucket: string, limitPerMinute: number) => Effect.Effect<RateDecision>
}>()("app/auth/RateLimiter") {
  static readonly make = (sql: Sql | undefined, now: () => number = Date.now) => {
    const buckets = new Map<string, Bucket>()
    const roll = (b: Bucket, t: number) => {
      const ws = windowStartOf(t)
      if (ws === b.windowStart) return
      const previous = ws - b.windowStart === WINDOW_MS ? b.globalCurrent + b.unsynced : 0
      Object.assign(b, { windowStart: ws, globalPrevious: previous, globalCurrent: 0, unsynced: 0 })
    }
    /**
     * A bucket this process has not seen lately starts from the cluster's counts, not from zero. Runs in the
     * request's fiber: its warning carries the request's span.
     */
    const load = (bucket: string): Effect.Effect<Bucket> => Effect.gen(function*() {
      const t = now()
      const b: Bucket = { windowStart: windowStartOf(t), globalCurrent: 0, globalPrevious: 0, unsynced: 0, touched: t }
      if (sql) {
        const rows = yield* Effect.tryPromise({
          try: () => sql`
            SELECT window_start, count::int AS count FROM rate_counters
            WHERE bucket = ${bucket} AND window_start >= ${new Date(b.windowStart - WINDOW_MS)}`,
          catch: databaseFailure
        }).pipe(Effect.catch((e) =>
          // Availability first: without the shared store, decide on what this process counts.
          Effect.logWarning("rate limit load failed; deciding on local counts").pipe(
            Effect.annotateLogs({ error: errorText(e) }),
            Effect.as([] as ReadonlyArray<Record<string, unknown>>)
          )))
        for (const r of rows) {
          const ws = (r.window_start as Date).getTime()
          if (ws === b.windowStart) b.globalCurrent = r.count as number
          else if (ws === b.windowStart - WINDOW_MS) b.globalPrevious = r.count as number
        }
      }
      return buckets.get(bucket) ?? (buckets.set(bucket, b), b)
    })
    const take = (b: Bucket, limit: number): RateDecision => {
      const t = now()
      roll(b, t)
      b.touched = t
      const counts: WindowCounts = { windowStart: b.windowStart, current: b.globalCurrent + b.unsynced, previous: b.globalPrevious }
      const d = decide(counts, limit, t)
      if (d.allowed) b.unsynced++
      return d
    }
    const sync = async () => {
      if (!sql) return
      const t = now()
      const active = [...buckets].filter(([, b]) => t - b.touched < 2 * WINDOW_MS)
      for (const [k, b] of buckets) if (t - b.touched >= 2 * WINDOW_MS) buckets.delete(k)
      if (active.length === 0) return
      for (const [, b] of active) roll(b, t)
      const sent = active.map(([k, b]) => ({ k, b, n: b.unsynced }))
      const rows = await sql`
        WITH delta AS (
          SELECT * FROM unnest(${sent.map((s) => s.k)}::text[], ${sent.map((s) => new Date(s.b.windowStart).toISOString())}::text[]::timestamptz[],
            ${sent.map((s) => s.n)}::bigint[]) AS d(bucket, window_start, n)
        ), up AS (
          INSERT INTO rate_counters (bucket, window_start, count) SELECT bucket, window_start, n FROM delta
          ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + EXCLUDED.count
          RETURNING bucket, window_start, count
        )
        SELECT up.bucket, up.count::int AS current,
          coalesce((SELECT r.count FROM rate_counters r WHERE r.bucket = up.bucket AND r.window_start = up.window_start - interval '1 minute'), 0)::int AS previous
        FROM up`
      const totals = new Map(rows.map((r) => [r.bucket as string, r]))
      for (const s of sent) {
        const r = totals.get(s.k)
        if (!r || s.b.windowStart !== windowStartOf(now())) continue
        s.b.unsynced -= s.n
        s.b.globalCurrent = r.current as number
        s.b.globalPrevious = Math.max(s.b.globalPrevious, r.previous as number)
      }
    }
    const takeBucket = (k: string, l: number) => {
      const known = buckets.get(k)
      return known
        ? Effect.sync(() => take(known, l))
        : load(k).pipe(Effect.map((b) => take(b, l)))
    }
    return { service: RateLimiter.of({ take: takeBucket }), sync }
  }

  /** A limiter that never talks to anyone (unit tests, single process). */
  static readonly local = (now?: () => number) => RateLimiter.make(undefined, now).service

  static readonly layer = Layer.effect(RateLimiter, Effect.gen(function*() {
    const { sql } = yield* Database
    const { service, sync } = RateLimiter.make(sql)
    let running = false
    const timer = setInterval(() => {
      if (running) return
      running = true
      // A timer callback, outside any fiber: the plain log() (same logger and format).
      sync().catch((e) => log("warn", "rate limit sync failed; deciding on local counts", { error: errorText(e) })).finally(() => (running = false))
    }, SYNC_MS)
    timer.unref()
    const purge = setInterval(() => {
      sql`DELETE FROM rate_counters WHERE window_start < now() - interval '5 minutes'`.catch(() => undefined)
    }, 60_000)
    purge.unref()
    yield* Effect.addFinalizer(() => Effect.sync(() => {
      clearInterval(timer)
      clearInterval(purge)
    }))
    return service
  }))
}
