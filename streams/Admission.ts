import { Clock, Config, Context, Effect, Layer, Schedule } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { AdmissionLimit, DEFAULT_ADMISSION, type Refusal } from "../core/load/admissionLimit.ts"
import { Metrics, sample } from "../core/observability/metrics.ts"

/**
 * Per request, whether its first actor call was admitted: the rest of its calls (a batch's items) are then never
 * refused. Provided by the HTTP edge for every request; outside a request (a worker's own calls) there is no slot and
 * no admission: only what partners send is shed.
 */
export interface AdmissionSlotShape {
  admitted: boolean
}
export const AdmissionSlot = Context.Reference<AdmissionSlotShape | undefined>("app/streams/AdmissionSlot", { defaultValue: () => undefined })

export interface AdmissionShape {
  /** The number of calls admitted at once now. */
  readonly limit: () => number
  /** Why a request of the tenant would be refused now (checked before its body is read), or undefined. */
  readonly refusal: (tenant: string) => Effect.Effect<Refusal | undefined>
  /** A place for one actor call of a request (refused or counted), and the function that frees it. */
  readonly enter: (tenant: string) => Effect.Effect<{ readonly refused: Refusal } | { readonly leave: () => void }>
}

const settings = Config.all({
  targetMs: Config.Int("GEP_ADMISSION_TARGET_MS").pipe(Config.withDefault(DEFAULT_ADMISSION.targetMs)),
  floodTargetMs: Config.Int("GEP_ADMISSION_FLOOD_TARGET_MS").pipe(Config.withDefault(DEFAULT_ADMISSION.floodTargetMs)),
  floodLagMs: Config.Int("GEP_ADMISSION_FLOOD_LAG_MS").pipe(Config.withDefault(DEFAULT_ADMISSION.floodLagMs)),
  initial: Config.Int("GEP_ADMISSION_INITIAL").pipe(Config.withDefault(DEFAULT_ADMISSION.initial)),
  min: Config.Int("GEP_ADMISSION_MIN").pipe(Config.withDefault(DEFAULT_ADMISSION.min)),
  max: Config.Int("GEP_ADMISSION_MAX").pipe(Config.withDefault(DEFAULT_ADMISSION.max)),
  tenantShare: Config.Number("GEP_ADMISSION_TENANT_SHARE").pipe(Config.withDefault(DEFAULT_ADMISSION.tenantShare)),
  windowMs: Config.succeed(DEFAULT_ADMISSION.windowMs)
})

/** The event-loop delay's sampling resolution (ms): an idle loop measures about this much. */
const LAG_RESOLUTION_MS = 10

/**
 * Tells the limit the event loop's delay every window: the median of the window, beyond the sampling resolution. A
 * median, not the longest: one garbage collection is no flood, a loop behind on every turn is. A window without a
 * sample is a loop that did not come round in it (a flood's first turns read a thousand requests each): behind by
 * at least the window.
 */
const measureLoopDelay = (limit: AdmissionLimit) =>
  Effect.gen(function*() {
    const delay = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS })
    delay.enable()
    yield* Effect.addFinalizer(() => Effect.sync(() => delay.disable()))
    yield* Effect.clockWith((clock) => Effect.sync(() => {
      const ms = delay.count === 0 ? limit.settings.windowMs : Math.max(0, delay.percentile(50) / 1e6 - LAG_RESOLUTION_MS)
      limit.loopDelay(ms, clock.currentTimeMillisUnsafe())
      delay.reset()
    })).pipe(Effect.repeat(Schedule.spaced(limit.settings.windowMs)), Effect.forkScoped)
  })

/** This process's admission limit for partners' actor calls (core/load/admissionLimit.ts says how it adapts). */
export class Admission extends Context.Service<Admission, AdmissionShape>()("app/streams/Admission") {
  static readonly layer = Layer.effect(Admission, Effect.gen(function*() {
    const limit = new AdmissionLimit(yield* settings, yield* Clock.currentTimeMillis)
    const unsample = sample(Metrics.admissionLimit, (set) => {
      set({ measure: "limit" }, Math.floor(limit.limit))
      set({ measure: "in_flight" }, limit.inFlight)
      set({ measure: "flood" }, limit.flooded ? 1 : 0)
    })
    yield* Effect.addFinalizer(() => Effect.sync(unsample))
    yield* measureLoopDelay(limit)
    const shed = (where: "edge" | "call", reason: Refusal) => Metrics.shed.inc({ where, reason })
    return Admission.of({
      limit: () => Math.floor(limit.limit),
      refusal: (tenant) => Effect.clockWith((clock) => Effect.sync(() => {
        const refused = limit.refusal(tenant, clock.currentTimeMillisUnsafe())
        if (refused !== undefined) shed("edge", refused)
        return refused
      })),
      enter: (tenant) => Effect.gen(function*() {
        const slot = yield* AdmissionSlot
        if (slot === undefined) return { leave: () => {} }
        const clock = yield* Clock.Clock
        const refused = limit.enter(tenant, clock.currentTimeMillisUnsafe(), slot.admitted)
        if (refused !== undefined) {
          shed("call", refused)
          return { refused }
        }
        const first = !slot.admitted
        slot.admitted = true
        const entered = clock.currentTimeMillisUnsafe()
        let left = false
        return {
          leave: () => {
            if (left) return
            left = true
            const now = clock.currentTimeMillisUnsafe()
            limit.leave(tenant, now, now - entered, first)
          }
        }
      })
    })
  }))
}
