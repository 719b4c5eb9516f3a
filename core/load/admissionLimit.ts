/**
 * How many actor calls an ingress lets wait for their answers at once, adapted to what the workers behind it get
 * through, so that an overload is refused at the door (503 at once) instead of queued until clients give up.
 *
 * Little's law: calls in flight = throughput × time each waits. At the end of every `windowMs` in which the limit
 * bound (it was reached, or a call was refused), calls waited more than `QUEUEING` times `targetMs` on average, or
 * nothing was answered for `STALL_MS` while calls were held, the limit is aimed at `throughput × targetMs`: what the
 * workers completed per second times the wait aimed at. It drops to the aim at once and rises halfway to it, so a
 * flood is cut within a window and a recovery is probed. Saturated, the calls admitted wait about `targetMs`; with
 * room to spare, the measured throughput grows with the load and the limit with it; with workers stalled or away
 * (nothing answered), it falls to `min`. A closed loop of clients that never reaches the limit and waits less than
 * `QUEUEING` times the target is left alone: it queues no more than its own concurrency. That holds after a stall or
 * a queueing spike too: the limit they cut rises back to where it was, not only to the aim, which a closed loop of
 * 128 on a slow machine (180/s, 711 ms each) exceeds. In a window the load does not reach, the limit goes halfway
 * towards its rest, `initial` (or twice the calls held, if more), so a surge meets a known limit (docs/adr/0040).
 * Per process: each ingress measures its own calls, so the limits add up as ingresses are added.
 *
 * Fair shares, work-conserving: a tenant alone may use the whole limit; once another tenant has asked within the last
 * `ACTIVE_WINDOWS` windows, each may hold at most `tenantShare` of it. A tenant under its share is let in even when the
 * limit is full, as long as another holds more than its share (that one is refused until it has drained to its
 * share), so a partner arriving during another's burst is not refused for the burst.
 *
 * A flood aims lower (`floodTargetMs`). What a client waits is the time its request sits in the ingress's sockets
 * before it is read, plus the wait behind the limit. The first is nothing while the ingress keeps up, and grows with
 * the ingress's event-loop delay once it does not: a flood several times the workers' pace has the ingress parsing
 * and refusing thousands of requests a second, and at the 400 ms aim accepted writes waited 2.2 s at p99 (the
 * bench's overload phase, 2026-11-28). So the limit is taken for a flood, and aimed at `floodTargetMs`, when it is
 * reached while the loop is delayed `floodLagMs` or more, other than on its way back up after a stall or a queueing
 * spike; it stays one until a window in which the limit was not reached. A closed loop never enters: its clients
 * hold no more than their own number, under `throughput x targetMs` unless each of them waits over the target.
 * The lower aim for every overload was tried and not kept: a closed loop of 128 clients on a slow machine (386
 * reservations/s) is held under 128 by it, and each refused client asking again at once made 10,549 refusals in 15 s
 * (docs/adr/0035).
 */
export interface AdmissionSettings {
  /** The wait a saturated ingress aims its calls at (ms). */
  readonly targetMs: number
  /** The wait aimed at during a flood (ms): the limit reached while the event loop lags. */
  readonly floodTargetMs: number
  /** The event-loop delay (ms beyond the sampling resolution, the median of the last window) from which the ingress lags. */
  readonly floodLagMs: number
  readonly initial: number
  readonly min: number
  readonly max: number
  /** The part of the limit one tenant may hold (0 < share <= 1). */
  readonly tenantShare: number
  readonly windowMs: number
}

/**
 * Calls waiting this many times the target on average adapt the limit even when it did not bind: a safety net for
 * workers that slowed while the limit was high. Not lower: a closed loop of a partner's clients on a busy machine waits
 * 0.5-1.6 s in spikes (the bench's single phase on a slow day) and is no flood; cutting its limit only turned its
 * requests into 503s retried at once.
 */
const QUEUEING = 4

/** Calls held and none answered for this long: the workers stalled. */
const STALL_MS = 1_000

/**
 * Requests of one tenant always let in, whatever the limit: a partner's own few connections (a PMS's batch feed: 8 x 50
 * reservations outstanding) are a closed loop, not a flood. Counted in calls, one such feed exceeds a limit aimed at a
 * slow machine's throughput x the target, and was refused nineteen requests in twenty while the workers kept up
 * (the bench's batch phase, 2026-11-27); a flood is many requests, and meets the limit past these.
 */
export const FLOOR_REQUESTS = 8

/** How many windows a tenant's last request keeps it counted as active (contending for the shares). */
const ACTIVE_WINDOWS = 4

export const DEFAULT_ADMISSION: AdmissionSettings = {
  targetMs: 600, floodTargetMs: 150, floodLagMs: 40, initial: 256, min: 32, max: 20_000, tenantShare: 0.5, windowMs: 250
}

/**
 * A limit this close to its aim is at it. One cut by a stall or a queueing spike rises halfway towards its aim a
 * window; reaching it on the way up says the limit is low, not that a flood came.
 */
const AT_AIM = 0.9

/**
 * A limit the load does not reach rests at this many times the calls it holds (or at `initial`, if higher). Above one,
 * so that a closed loop, which holds its own number in every window, never meets a limit resting on it.
 */
const RESTING_HEADROOM = 2

/** Why a call was refused: this process is at its limit, or the caller's tenant is at its share. */
export type Refusal = "process" | "tenant"

export class AdmissionLimit {
  limit: number
  inFlight = 0
  private readonly perTenant = new Map<string, number>()
  /** Requests in flight per tenant (their first calls): under FLOOR_REQUESTS, a tenant is let in. */
  private readonly requestsOf = new Map<string, number>()
  private readonly lastAsked = new Map<string, number>()
  private windowStart: number
  private completed = 0
  private waitedMs = 0
  private peak = 0
  private bound = false
  /** When the last call was answered, and when calls began to be held (from none). */
  private lastAnswerAt = 0
  private busySince = 0
  /** The event loop's delay (ms), as last measured (`loopDelay`). */
  private lagMs = 0
  private floodNow = false
  /** Cut by a stall or a queueing spike, and not yet back at its aim: reaching it then is no flood. */
  private recovering = false
  /** The limit before that cut: what it rises back towards, as well as the aim (see `tick`). */
  private restoreTo = 0

  readonly settings: AdmissionSettings

  /** Whether the limit is aimed at a flood (`floodTargetMs`). */
  get flooded(): boolean {
    return this.floodNow
  }

  constructor(settings: AdmissionSettings, now: number) {
    this.settings = settings
    this.limit = Math.min(settings.max, Math.max(settings.min, settings.initial))
    this.windowStart = now
  }

  /** The calls one tenant may hold. */
  tenantCap(): number {
    return Math.max(1, Math.floor(this.limit * this.settings.tenantShare))
  }

  /** Why a new call of the tenant would be refused now, or undefined when it would be admitted. Asking counts as activity. */
  refusal(tenant: string, now: number): Refusal | undefined {
    this.lastAsked.set(tenant, now)
    if ((this.requestsOf.get(tenant) ?? 0) < FLOOR_REQUESTS) return undefined
    const contended = this.othersActive(tenant, now)
    const fair = contended ? this.tenantCap() : Math.floor(this.limit)
    if ((this.perTenant.get(tenant) ?? 0) >= fair) return contended ? "tenant" : "process"
    if (this.inFlight >= Math.floor(this.limit) && !(contended && this.someoneHoldsMoreThan(fair))) return "process"
    return undefined
  }

  /**
   * Takes a place for a call, or says why not. `admitted`: the call belongs to a request whose first call was let in
   * (a batch's items): it is counted but never refused, so a request is admitted or refused whole.
   */
  enter(tenant: string, now: number, admitted = false): Refusal | undefined {
    this.tick(now)
    const refused = admitted ? undefined : this.refusal(tenant, now)
    if (refused !== undefined) {
      this.bound = true
      return refused
    }
    if (this.inFlight === 0) this.busySince = now
    this.inFlight++
    this.perTenant.set(tenant, (this.perTenant.get(tenant) ?? 0) + 1)
    if (!admitted) this.requestsOf.set(tenant, (this.requestsOf.get(tenant) ?? 0) + 1)
    this.peak = Math.max(this.peak, this.inFlight)
    return undefined
  }

  private othersActive(tenant: string, now: number): boolean {
    const since = now - ACTIVE_WINDOWS * this.settings.windowMs
    for (const [other, at] of this.lastAsked) if (other !== tenant && at >= since) return true
    for (const other of this.perTenant.keys()) if (other !== tenant) return true
    return false
  }

  private someoneHoldsMoreThan(places: number): boolean {
    for (const held of this.perTenant.values()) if (held > places) return true
    return false
  }

  /** A call answered (or given up on) after waiting `waitedMs`: its place is free again. `first`: its request's first. */
  leave(tenant: string, now: number, waitedMs: number, first = false): void {
    if (first) {
      const requests = (this.requestsOf.get(tenant) ?? 1) - 1
      if (requests <= 0) this.requestsOf.delete(tenant)
      else this.requestsOf.set(tenant, requests)
    }
    this.inFlight--
    const held = (this.perTenant.get(tenant) ?? 1) - 1
    if (held <= 0) this.perTenant.delete(tenant)
    else this.perTenant.set(tenant, held)
    this.completed++
    this.waitedMs += waitedMs
    this.lastAnswerAt = now
    this.tick(now)
  }

  /**
   * The ingress's event-loop delay now (ms beyond the sampling resolution; the median of the last window), told every
   * window: the window also ends here when no call entered or left, so a flood that stopped is over (and its gauge says
   * so), and workers that stalled under calls held are seen within the second, not at the next call.
   */
  loopDelay(ms: number, now?: number): void {
    this.lagMs = ms
    if (now !== undefined) this.tick(now)
  }

  private tick(now: number): void {
    const elapsed = now - this.windowStart
    if (elapsed < this.settings.windowMs) return
    const { min, max, targetMs, floodTargetMs, floodLagMs } = this.settings
    const aimAt = (waitMs: number) => Math.min(max, Math.max(min, (this.completed / elapsed) * waitMs))
    const reached = this.bound || this.peak >= Math.floor(this.limit)
    // Recovering, and answers flow with the limit no longer reached: the trouble has passed, so the limit is back where
    // it was at once. Left just above what the load holds now, the next wobble would reach it and cut it to the aim.
    if (this.recovering && !reached && this.completed > 0) this.limit = Math.max(this.limit, this.restoreTo)
    // Back at the aim: measured by answers (a window without any, in a stall, says nothing of the aim).
    if (!reached || (this.completed > 0 && this.limit >= AT_AIM * Math.max(aimAt(targetMs), this.restoreTo))) this.recovering = false
    if (!reached) this.floodNow = false
    else if (!this.recovering && this.lagMs >= floodLagMs) this.floodNow = true
    // The safety net keeps the ordinary target: a closed loop's spikes are measured against it, flood or not.
    const queueing = this.completed > 0 && this.waitedMs / this.completed > QUEUEING * targetMs
    // Calls held and none answered for a second: the workers stalled (or are away). Cut now, not once the calls pile
    // up to the limit, which at a modest rate takes seconds of writes queued for nobody. A second, not a window: the
    // first answers of a burst onto one contended row (or a cold process) can take a few hundred milliseconds.
    const stalled = this.inFlight >= min && now - Math.max(this.lastAnswerAt, this.busySince) >= STALL_MS
    const cut = stalled || (queueing && !reached)
    // The cut is of a passing trouble, not of the load: once answers flow again the limit rises back to where it was,
    // not only to throughput x target. A closed loop the limit had left alone (128 clients on a machine answering
    // 180 a second wait 711 ms, over the 600 ms aim) was otherwise held under its number for good after one slowdown.
    if (cut && !this.recovering) this.restoreTo = this.limit
    if (cut) this.recovering = true
    if (!this.recovering) this.restoreTo = 0
    if (reached || queueing || stalled) {
      const ordinary = aimAt(this.floodNow ? floodTargetMs : targetMs)
      const aim = this.recovering && !cut ? Math.max(ordinary, this.restoreTo) : ordinary
      this.limit = aim < this.limit ? aim : (this.limit + aim) / 2
    } else {
      // Not reached (which ended any recovery above, the limit first put back where it was): the load does not need
      // the limit where an earlier load left it, so it goes halfway towards its rest (docs/adr/0040). Otherwise the
      // next surge meets whatever the last binding window set: thousands of calls after a batch feed's bursts of
      // answers (a flood's first second let in 2,371 writes that waited up to 2 s), or the minimum. At rest, the limit is what a freshly started process has (`initial`). It comes down only to twice
      // the calls held in the window: a closed loop holds its own number in every window and never meets it. It never
      // rises above `initial` here: calls held growing window after window are a flood filling up, and a limit kept
      // ahead of them would never bind.
      const rest = Math.max(this.settings.initial, Math.min(this.limit, RESTING_HEADROOM * this.peak))
      this.limit = (this.limit + rest) / 2
    }
    this.windowStart = now
    this.completed = 0
    this.waitedMs = 0
    this.bound = false
    this.peak = this.inFlight
    const since = now - ACTIVE_WINDOWS * this.settings.windowMs
    for (const [tenant, at] of this.lastAsked) if (at < since) this.lastAsked.delete(tenant)
  }
}
