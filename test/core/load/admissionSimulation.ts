import { AdmissionLimit, DEFAULT_ADMISSION, type AdmissionSettings } from "../../../core/load/admissionLimit.ts"

/** Arrivals and answers simulated by the millisecond against the admission limit (core/load/admissionLimit.ts). */

/** The workers answer nothing from `fromMs` to `toMs` (a stall), then go on. */
export interface Stall {
  readonly fromMs: number
  readonly toMs: number
  /** Completions a second meanwhile (none when absent): a slowdown rather than a stall, answers still trickling. */
  readonly capacity?: number
}

export const settings: AdmissionSettings = { ...DEFAULT_ADMISSION }

/** A FIFO server: `capacity` completions a second, none sooner than `serviceMs` after its arrival; completes what is due by `now`. */
const fifoServer = (capacity: number, serviceMs: number, stall?: Stall) => {
  let nextFree = 0
  return <T extends { readonly at: number }>(queue: Array<T>, now: number, done: (call: T) => void) => {
    const slowed = stall !== undefined && now >= stall.fromMs && now < stall.toMs
    if (slowed && stall.capacity === undefined) return
    const rate = slowed ? stall.capacity! : capacity
    while (queue.length > 0) {
      const due = Math.max(queue[0]!.at + serviceMs, nextFree + 1000 / rate)
      if (due > now) break
      nextFree = due
      done(queue.shift()!)
    }
  }
}

/**
 * A FIFO server behind the limit, by the millisecond: `capacity` completions a second, none sooner than `serviceMs`
 * after its arrival; `offered` arrivals a second. The accepted calls' waits, the refused count, and the limit seen.
 */
export const simulate = (o: {
  /** Arrivals a second, or a function of the instant (ms): a quiet spell, then a flood. */
  offered: number | ((now: number) => number); capacity: number; serviceMs: number; seconds: number; tenants?: number; tenantOf?: (i: number) => string; fromMs?: number
  /** The ingress's event-loop delay told to the limit (ms), or a function of the instant: a lagging ingress. */
  lagMs?: number | ((now: number) => number)
  /** The limit at the start, as an earlier load left it (the settings' `initial` when absent). */
  startLimit?: number
}) => {
  const limit = startingAt(o.startLimit)
  const offered = typeof o.offered === "number" ? () => o.offered as number : o.offered
  const lagAt = (now: number) => typeof o.lagMs === "function" ? o.lagMs(now) : o.lagMs ?? 0
  limit.loopDelay(lagAt(0))
  const queue: Array<{ at: number; tenant: string }> = []
  const waits: Array<number> = []
  const acceptedBy = new Map<string, number>()
  const refusedBy = new Map<string, number>()
  const complete = fifoServer(o.capacity, o.serviceMs)
  let refused = 0, arrivals = 0, due = 0
  for (let now = 0; now < o.seconds * 1000; now++) {
    if (now % settings.windowMs === 0) limit.loopDelay(lagAt(now), now)
    due += offered(now) / 1000
    for (; arrivals < due; arrivals++) {
      const tenant = o.tenantOf?.(arrivals) ?? `t${arrivals % (o.tenants ?? 1)}`
      const counts = limit.enter(tenant, now) === undefined ? (queue.push({ at: now, tenant }), acceptedBy) : (refused++, refusedBy)
      counts.set(tenant, (counts.get(tenant) ?? 0) + 1)
    }
    complete(queue, now, (call) => {
      limit.leave(call.tenant, now, now - call.at, true)
      if (call.at > (o.fromMs ?? 2_000)) waits.push(now - call.at)
    })
  }
  waits.sort((a, b) => a - b)
  return { waits, refused, limit, acceptedBy, refusedBy, p99: waits[Math.floor(waits.length * 0.99)]!, throughput: waits.length / (o.seconds - 2) }
}

/** A limit as an earlier load left it: `startLimit` calls (the settings' `initial` when absent). */
const startingAt = (startLimit?: number) => {
  const limit = new AdmissionLimit(settings, 0)
  if (startLimit !== undefined) limit.limit = startLimit
  return limit
}

/** `clients` each sending its next call as soon as the last is answered (a PMS's connection pool), at `capacity`/s. */
export const closedLoop = (o: {
  clients: number; capacity: number; serviceMs: number; seconds: number; lagMs?: number; stall?: Stall
  /** Refusals from this instant on are also counted apart (`refusedLate`): after a stall, once the limit had time to recover. */
  lateFromMs?: number
  /** Calls a second of the same partner outside the loop (none waited on): what lets the limit see a stall that the loop's clients, all waiting, cannot. */
  trickle?: number
  /** The limit at the start, as an earlier load left it. */
  startLimit?: number
}) => {
  const limit = startingAt(o.startLimit)
  limit.loopDelay(o.lagMs ?? 0)
  const queue: Array<{ at: number; other?: boolean }> = []
  const complete = fifoServer(o.capacity, o.serviceMs, o.stall)
  let refused = 0, refusedLate = 0, completed = 0, idle = o.clients
  for (let now = 0; now < o.seconds * 1000; now++) {
    // As streams/Admission.ts does: the loop's delay told every window, which also ends the window without a call.
    if (now % settings.windowMs === 0) limit.loopDelay(o.lagMs ?? 0, now)
    let retrying = 0
    for (; idle > 0; idle--) {
      if (limit.enter("pms", now) === undefined) queue.push({ at: now })
      else {
        // Refused at once: the client's next try is at the next millisecond.
        refused++
        retrying++
        if (now >= (o.lateFromMs ?? Infinity)) refusedLate++
      }
    }
    idle = retrying
    if (o.trickle !== undefined && now % Math.round(1000 / o.trickle) === 0 && limit.enter("pms", now) === undefined) {
      queue.push({ at: now, other: true })
    }
    complete(queue, now, (call) => {
      limit.leave("pms", now, now - call.at, true)
      completed++
      if (call.other !== true) idle++
    })
  }
  return { refused, refusedLate, completed, limit }
}

/**
 * `clients` each sending a batch of `size` calls as soon as its last batch is answered whole (a PMS's batch feed),
 * to workers that commit `capacity` calls a second in groups every `groupMs` (a group's calls answered at once).
 */
export const batchLoop = (o: { clients: number; size: number; capacity: number; groupMs: number; seconds: number }) => {
  const limit = new AdmissionLimit(settings, 0)
  const queue: Array<{ at: number; batch: number; first: boolean }> = []
  const left = new Map<number, number>()
  let refused = 0, accepted = 0, idle = o.clients, batches = 0
  for (let now = 0; now < o.seconds * 1000; now++) {
    for (; idle > 0; idle--) {
      const batch = batches++
      // The first call is admitted or refused; the request's other calls are counted, never refused.
      if (limit.enter("pms", now) !== undefined) {
        refused++
        continue
      }
      accepted++
      for (let i = 1; i < o.size; i++) limit.enter("pms", now, true)
      for (let i = 0; i < o.size; i++) queue.push({ at: now, batch, first: i === 0 })
      left.set(batch, o.size)
    }
    if (now % o.groupMs === 0) {
      for (const call of queue.splice(0, Math.round((o.capacity * o.groupMs) / 1000))) {
        limit.leave("pms", now, now - call.at, call.first)
        const remaining = left.get(call.batch)! - 1
        left.set(call.batch, remaining)
        if (remaining === 0) idle++
      }
    }
  }
  return { refused, accepted, limit }
}
