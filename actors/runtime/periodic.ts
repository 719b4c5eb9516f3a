import { Clock, type Duration, Effect, Schedule } from "effect"
import { errorText } from "../../core/observability/log.ts"

/** A job a worker runs on a schedule: a sweep or a scan over PostgreSQL, as of the instant it is given. */
export interface PeriodicJob {
  /** What the log calls it: "<name> failed". */
  readonly name: string
  /** The span of one run. */
  readonly span: string
  /** The pause between the end of one run and the start of the next. */
  readonly every: Duration.Input
  readonly run: (now: Date) => Promise<unknown>
}

/**
 * One run with "now" read from the Clock (the test clock in tests), in its own span. A failure is logged as a warning
 * with the error's text alone (never the rows or values the job was working on: they may be a guest's data) and not
 * rethrown: the next run tries again.
 */
export const runOnce = (job: PeriodicJob): Effect.Effect<void> =>
  Clock.currentTimeMillis.pipe(
    Effect.flatMap((now) => Effect.tryPromise({ try: () => job.run(new Date(now)), catch: (e) => e })),
    Effect.asVoid,
    Effect.catch((e) => Effect.logWarning(`${job.name} failed`).pipe(Effect.annotateLogs({ error: errorText(e) }))),
    Effect.withSpan(job.span)
  )

/**
 * The job every `every`, the first time `every` after the fiber starts, for as long as the fiber lives: fork it in a
 * layer's scope (`Effect.forkScoped`), and the layer's release interrupts it. `Schedule.spaced` counts from the end of a
 * run, so two runs of one worker never overlap and a slow run delays the next instead of piling runs up. Not at start:
 * a worker restarted in a crash loop (or a deployment scaled up at once) would otherwise run every job, the hourly
 * purge and the date scan included, once per start (seen as the message fault test's sends starved at full size).
 */
export const periodic = (job: PeriodicJob) =>
  Effect.sleep(job.every).pipe(Effect.andThen(runOnce(job).pipe(Effect.repeat(Schedule.spaced(job.every)))))
