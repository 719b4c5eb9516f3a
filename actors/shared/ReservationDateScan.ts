import { Config, Context, Effect, Layer } from "effect"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database, runTransaction, type Sql, type Tx } from "../../core/db/Database.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import { insertOutboxRows, messagePublisher } from "../runtime/OutboxRelay.ts"
import { periodic } from "../runtime/periodic.ts"

// Any constant: the same in every worker, so one scan runs at a time across the deployment. It is the key the webhook
// date scan held before the journey date scan joined it: during a rolling upgrade a worker of the release before may
// still run its journey scan under its old key beside this one, which both parts' unique keys make harmless.
const SCAN_LOCK = 724_113_905

export interface DateScanDeps {
  readonly sql: Sql
  readonly namespace: string
  /** Publishes committed outbox rows (the worker's relay sweeps up anything this misses). */
  readonly publish: (messages: ReadonlyArray<OutboxMessage>) => Promise<void>
}

/** What a worker's scan hands its parts: the deployment's namespace, and its partition count for messages told to actors. */
export interface WorkerDateScanDeps extends DateScanDeps {
  readonly partitions: number
}

/**
 * One family's share of the scan: records what is due at `now` (keys that make each fire happen once) and returns the
 * messages that announce it, in the scan's transaction; the scan writes them to the outbox.
 */
export type DateScanPart<D> = (tx: Tx, now: Date, deps: D) => Promise<ReadonlyArray<OutboxMessage & { readonly tenant_id: string }>>

export interface DateScanOutcome<K extends string> {
  /** False when another worker was scanning at that moment (it covers the same ground). */
  readonly ran: boolean
  /** Each part's messages as written to the outbox (webhook commands carry their sequence). */
  readonly messages: Record<K, ReadonlyArray<OutboxMessage>>
}

/**
 * The reservation date scan at `now`, callable for any instant (tests pass the `now` they need; workers pass the
 * clock): one advisory lock and one transaction for all its parts, one outbox write and one publish after the commit.
 * Without `waitForLock` a scan finding another one running returns at once (`ran: false`).
 */
export const scanReservationDates = async <D extends DateScanDeps, K extends string>(
  deps: D, now: Date, parts: Record<K, DateScanPart<D>>, options: { waitForLock?: boolean } = {}
): Promise<DateScanOutcome<K>> => {
  const names = Object.keys(parts) as Array<K>
  const written = await runTransaction(deps.sql, async (tx) => {
    if (options.waitForLock) await tx`SELECT pg_advisory_xact_lock(${SCAN_LOCK})`
    else {
      const [lock] = await tx`SELECT pg_try_advisory_xact_lock(${SCAN_LOCK}) AS locked`
      if (!lock!.locked) return undefined
    }
    // One after the other: a transaction is one connection.
    const due: Array<ReadonlyArray<OutboxMessage & { readonly tenant_id: string }>> = []
    for (const name of names) due.push(await parts[name](tx, now, deps))
    const rows = await insertOutboxRows(tx, due.flat())
    let at = 0
    return due.map((d) => rows.slice(at, (at += d.length)))
  })
  const messages = {} as Record<K, ReadonlyArray<OutboxMessage>>
  names.forEach((name, i) => (messages[name] = written?.[i] ?? []))
  const all = written?.flat() ?? []
  if (all.length > 0) await deps.publish(all)
  return { ran: written !== undefined, messages }
}

/**
 * How often a worker runs the scan: the shorter of the settings of the two scans it replaced (README, Decisions), so
 * neither part runs later than its own setting said; running a part more often than that fires nothing twice.
 */
const intervalMs = Config.all([
  Config.Int("GEP_WEBHOOK_DATE_SCAN_INTERVAL_MS").pipe(Config.withDefault(60_000)),
  Config.Int("GEP_JOURNEY_DATE_SCAN_MS").pipe(Config.withDefault(60_000))
]).pipe(Config.map(([webhooks, journeys]) => Math.min(webhooks, journeys)))

export interface ReservationDateScanShape {
  /** The scan at `now` (the worker's schedule calls it with the clock). */
  readonly scan: (now: Date, options?: { waitForLock?: boolean }) => Promise<DateScanOutcome<string>>
}

/**
 * The worker's one scheduled scan over reservation dates, whose parts belong to the families that act on them (the
 * composition root names them: the webhook date events and the `reservation_date` journeys), run as a fiber of this
 * layer every interval, one worker at a time across the deployment.
 */
export class ReservationDateScan extends Context.Service<ReservationDateScan, ReservationDateScanShape>()("app/shared/ReservationDateScan") {
  static readonly layer = (parts: Record<string, DateScanPart<WorkerDateScanDeps>>) =>
    Layer.effect(ReservationDateScan, Effect.gen(function*() {
      const app = yield* AppConfig
      const { sql } = yield* Database
      const every = yield* intervalMs.pipe(Effect.orDie)
      const publish = yield* messagePublisher
      const deps = { sql, namespace: app.namespace, partitions: app.partitions, publish }
      const scan = (now: Date, options?: { waitForLock?: boolean }) => scanReservationDates(deps, now, parts, options)
      yield* Effect.forkScoped(periodic({ name: "reservation date scan", span: "ReservationDateScan.scan", every, run: scan }))
      return ReservationDateScan.of({ scan })
    }))
}
