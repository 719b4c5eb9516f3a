import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ROOT } from "../reference/sourceFiles.ts"

/**
 * Which figure of which committed bench result (test/bench/results/latest-*.json, written by `npm run bench`) each
 * chart and table row of docs/operations shows. A figure names its file, so a page says which run it comes from; a
 * path that no longer leads to a number fails the generator (a renamed bench key must be followed here).
 */

export interface Figure {
  readonly family: string
  readonly label: string
  readonly file: string
  readonly path: string
}

export const THROUGHPUT: ReadonlyArray<Figure> = [
  { family: "reservations", label: "single endpoint, full run", file: "latest.json", path: "single_per_s" },
  { family: "reservations", label: "batch endpoint (50 per request), full run", file: "latest.json", path: "batch_per_s" },
  { family: "reservations", label: "single endpoint, newest run", file: "latest-single.json", path: "single_per_s" },
  { family: "reservations", label: "batch endpoint, newest run", file: "latest-batch-long-single.json", path: "batch_per_s" },
  { family: "website events", label: "server key, batches of 50", file: "latest-website.json", path: "website.server_batches_of_50.events_per_s" },
  { family: "website events", label: "browser beacons, one each", file: "latest-website.json", path: "website.browser_single.events_per_s" },
  { family: "CDP", label: "visitor events", file: "latest-cdp.json", path: "cdp.events.events_per_s" },
  { family: "CDP", label: "bulk reservations with visits", file: "latest-cdp.json", path: "cdp.bulk.reservations_per_s" },
  { family: "CDP", label: "bulk reservations without visits", file: "latest-cdp.json", path: "cdp.bulk_without_visit.reservations_per_s" },
  { family: "journeys", label: "journey starts", file: "latest-journeys.json", path: "journeys.starts.journey_starts_per_s" },
  { family: "journeys", label: "wake-ups (3,000 due at once)", file: "latest-journeys.json", path: "journeys.burst.wakeups_per_s" },
  { family: "messaging", label: "emails sent end to end", file: "latest-messages.json", path: "messages.end_to_end_per_s" },
  { family: "broadcasts", label: "broadcast dispatch, emails", file: "latest-broadcast.json", path: "broadcast.emails_per_s" },
  { family: "broadcasts", label: "audience snapshot, recipients", file: "latest-broadcast.json", path: "broadcast.snapshot_per_s" },
  { family: "loyalty", label: "earns and redemptions", file: "latest-loyalty.json", path: "loyalty.writes_per_s" },
  { family: "loyalty SSO", label: "sign-ins", file: "latest-sso.json", path: "sso.sign_ins.per_s" },
  { family: "loyalty SSO", label: "member balance reads", file: "latest-sso.json", path: "sso.me_balance.per_s" }
]

/** A latency figure: a `latency_ms` object (p50, p95, p99), or three paths when a result keeps them apart. */
export interface LatencyFigure {
  readonly family: string
  readonly label: string
  readonly file: string
  readonly path: string | { readonly p50: string; readonly p95: string; readonly p99: string }
}

export const LATENCY: ReadonlyArray<LatencyFigure> = [
  { family: "reservations", label: "single, 400/s offered (full run)", file: "latest.json", path: { p50: "p50_ms_at_sustainable", p95: "p95_ms_at_sustainable", p99: "p99_ms_at_sustainable" } },
  { family: "reservations", label: "single, 500/s offered (full run)", file: "latest.json", path: { p50: "p50_ms_at_500", p95: "p95_ms_at_500", p99: "p99_ms_at_500" } },
  { family: "reservations", label: "single, 128 clients (newest run)", file: "latest-single.json", path: "phases.single.load.latency_ms" },
  { family: "reservations", label: "3× overload: writes let in", file: "latest-overload-single.json", path: "overload.accepted.latency_ms" },
  { family: "reservations", label: "3× overload: writes shed (503)", file: "latest-overload-single.json", path: "overload.shed.latency_ms" },
  { family: "reads", label: "contact profile, 200/s (1M reservations)", file: "latest-long-reads.json", path: "reads.profile.latency_ms" },
  { family: "reads", label: "timeline page of 50, 200/s", file: "latest-long-reads.json", path: "reads.timeline.latency_ms" },
  { family: "website events", label: "server batch of 50, 8 clients", file: "latest-website.json", path: "website.server_batches_of_50.latency_ms" },
  { family: "website events", label: "browser beacon, 64 clients", file: "latest-website.json", path: "website.browser_single.latency_ms" },
  { family: "CDP", label: "20 visitor events, 32 clients", file: "latest-cdp.json", path: "cdp.events.latency_ms" },
  { family: "journeys", label: "event starting a run, 64 clients", file: "latest-journeys.json", path: "journeys.starts.api_latency_ms" },
  { family: "journeys", label: "event starting a run, 109/s offered", file: "latest-journeys.json", path: "journeys.steady.api_latency_ms" },
  { family: "messaging", label: "POST /api/v1/messages, 64 clients", file: "latest-messages.json", path: "messages.api_latency_ms" },
  { family: "loyalty", label: "earn, 64 clients", file: "latest-loyalty.json", path: "loyalty.earn_latency_ms" },
  { family: "loyalty", label: "redeem, 64 clients", file: "latest-loyalty.json", path: "loyalty.redeem_latency_ms" },
  { family: "loyalty SSO", label: "sign-in", file: "latest-sso.json", path: "sso.sign_ins.latency_ms" },
  { family: "loyalty SSO", label: "member balance read", file: "latest-sso.json", path: "sso.me_balance.latency_ms" }
]

/** CPU per reservation, by process: the bench's cost model (recorded for the reservation phases only). */
export const CPU: ReadonlyArray<{ readonly label: string; readonly file: string; readonly path: string }> = [
  { label: "single endpoint, full run", file: "latest.json", path: "cost_model.single.cpu_ms_per_reservation" },
  { label: "batch endpoint, full run", file: "latest.json", path: "cost_model.batch.cpu_ms_per_reservation" },
  { label: "1M reservations in batches, full run", file: "latest.json", path: "cost_model.long.cpu_ms_per_reservation" },
  { label: "single endpoint, newest run", file: "latest-batch-long-single.json", path: "cost_model.single.cpu_ms_per_reservation" },
  { label: "batch endpoint, newest run", file: "latest-batch-long-single.json", path: "cost_model.batch.cpu_ms_per_reservation" }
]
export const CPU_PARTS = ["ingress", "worker", "postgres", "nats"] as const

export interface Run {
  readonly file: string
  readonly started_at: string
  readonly commit: string
  readonly load: ReadonlyArray<number>
}

const RESULTS = join(ROOT, "test", "bench", "results")
const cache = new Map<string, Record<string, unknown>>()
const result = (file: string) => {
  if (!cache.has(file)) cache.set(file, JSON.parse(readFileSync(join(RESULTS, file), "utf8")))
  return cache.get(file)!
}

export const at = (file: string, path: string): unknown =>
  path.split(".").reduce<unknown>((v, key) => (v as Record<string, unknown> | null | undefined)?.[key], result(file))

export const number = (file: string, path: string): number => {
  const v = at(file, path)
  if (typeof v !== "number") throw new Error(`bench figure ${file} ${path} is ${JSON.stringify(v)}, not a number`)
  return v
}

export const runOf = (file: string): Run => {
  const r = result(file) as { started_at: string; machine: { commit: string; loadavg_at_start: Array<number> } }
  return { file, started_at: r.started_at, commit: r.machine.commit.slice(0, 7), load: r.machine.loadavg_at_start }
}

export const percentiles = (f: LatencyFigure) =>
  typeof f.path === "string"
    ? { p50: number(f.file, `${f.path}.p50`), p95: number(f.file, `${f.path}.p95`), p99: number(f.file, `${f.path}.p99`) }
    : { p50: number(f.file, f.path.p50), p95: number(f.file, f.path.p95), p99: number(f.file, f.path.p99) }
