/**
 * What the bench observes from outside the platform: CPU time per process group (/proc), resident memory, the
 * reservation consumers' backlog, and the latency of a JetStream publish ack and of a PostgreSQL commit measured
 * while the platform is under load.
 */
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream"
import { readdirSync, readFileSync } from "node:fs"
import { cpus } from "node:os"
import type postgres from "postgres"
import { consumerName, ingressStream } from "../../streams/subjects.ts"
import { Latencies, round } from "./load.ts"

const CLK_TCK = 100 // Linux USER_HZ

/** utime + stime of a process in seconds, or 0 when it is gone. */
export const processCpuSeconds = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
  } catch {
    return 0
  }
}

export const pidsByName = (name: string): Array<number> => {
  const out: Array<number> = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === name) out.push(Number(entry))
    } catch {
      // exited meanwhile
    }
  }
  return out
}

/**
 * Busy and total CPU seconds of the whole machine (all cores). `busy` counts steal (time the hypervisor ran other
 * guests on this machine's CPUs: they were not ours to use), and `steal` says how much of it that was.
 */
export const machineCpu = (): { busy: number; steal: number; total: number } => {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!
  const v = line.trim().split(/\s+/).slice(1).map(Number)
  const idle = (v[3] ?? 0) + (v[4] ?? 0)
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0)
  return { busy: (total - idle) / CLK_TCK, steal: (v[7] ?? 0) / CLK_TCK, total: total / CLK_TCK }
}

/** VmRSS and VmHWM (peak) in MB. */
export const memoryOf = (pid: number): { rss_mb: number; peak_rss_mb: number } => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0)
    return { rss_mb: round(kb("VmRSS") / 1024, 1), peak_rss_mb: round(kb("VmHWM") / 1024, 1) }
  } catch {
    return { rss_mb: 0, peak_rss_mb: 0 }
  }
}

/** Main thread's time on a CPU and time runnable but waiting for one (run queue), in seconds (/proc/<pid>/schedstat). */
const schedOf = (pid: number): { run: number; wait: number } => {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, "utf8").trim().split(/\s+/).map(Number)
    return { run: (run ?? 0) / 1e9, wait: (wait ?? 0) / 1e9 }
  } catch {
    return { run: 0, wait: 0 }
  }
}

interface Seen {
  cpu0: number
  cpu: number
  run0: number
  run: number
  wait0: number
  wait: number
}

export interface CpuReading {
  /** Cores used per group (1.0 = one core fully busy); `other` = the rest of the machine. */
  readonly cores: Record<string, number>
  /**
   * Per group, the share of wall time its main threads (postgres: all its processes, summed) ran on a CPU and waited
   * in the run queue for one. A process whose wait share is high is slowed by CPU contention, not by its own work.
   */
  readonly sched: Record<string, { on_cpu: number; run_queue_wait: number }>
}

/**
 * One measurement interval. Processes are sampled every 500 ms, so short-lived ones (a pool's PostgreSQL backends,
 * connections closed before the end) still count up to their last sample; a process first seen after the start
 * counts from zero.
 */
export class CpuTracking {
  private readonly groups: Record<string, () => ReadonlyArray<number>>
  private readonly seen: Record<string, Map<number, Seen>> = {}
  private readonly at0 = performance.now()
  private readonly machine0 = machineCpu()
  private readonly timer: NodeJS.Timeout

  constructor(groups: Record<string, () => ReadonlyArray<number>>) {
    this.groups = groups
    this.sample(true)
    this.timer = setInterval(() => this.sample(false), 500)
    this.timer.unref()
  }

  private sample(initial: boolean) {
    for (const [name, pids] of Object.entries(this.groups)) {
      const map = (this.seen[name] ??= new Map())
      for (const pid of pids()) {
        const cpu = pid === process.pid ? benchCpu() : processCpuSeconds(pid)
        const { run, wait } = schedOf(pid)
        const e = map.get(pid)
        if (!e) map.set(pid, initial ? { cpu0: cpu, cpu, run0: run, run, wait0: wait, wait } : { cpu0: 0, cpu, run0: 0, run, wait0: 0, wait })
        else if (cpu >= e.cpu) Object.assign(e, { cpu, run: Math.max(e.run, run), wait: Math.max(e.wait, wait) })
      }
    }
  }

  end(): CpuReading {
    this.sample(false)
    clearInterval(this.timer)
    const seconds = (performance.now() - this.at0) / 1000
    const cores: Record<string, number> = {}
    const sched: Record<string, { on_cpu: number; run_queue_wait: number }> = {}
    let ours = 0
    for (const [name, map] of Object.entries(this.seen)) {
      let cpu = 0, run = 0, wait = 0
      for (const e of map.values()) {
        cpu += e.cpu - e.cpu0
        run += e.run - e.run0
        wait += e.wait - e.wait0
      }
      ours += cpu
      cores[name] = round(cpu / seconds)
      if (name !== "nats") sched[name] = { on_cpu: round(run / seconds), run_queue_wait: round(wait / seconds) }
    }
    const now = machineCpu()
    const machine = Math.max(0, now.busy - this.machine0.busy)
    const steal = Math.max(0, now.steal - this.machine0.steal)
    // Steal apart: a busy neighbour on the host is not a process of this machine.
    cores.other = round(Math.max(0, machine - steal - ours) / seconds)
    cores.steal = round(steal / seconds)
    cores.machine_busy = round(machine / seconds)
    cores.machine_cores = cpus().length
    return { cores, sched }
  }
}

/** CPU per group of processes: the bench itself, ingress, worker, nats-server, PostgreSQL. */
export class CpuMeter {
  private readonly groups: Record<string, () => ReadonlyArray<number>>

  /** `database`: count only the PostgreSQL backends of this database (plus the server's own processes). */
  constructor(pids: { ingress?: number; worker?: number; database?: string }) {
    this.groups = {
      bench: () => [process.pid],
      ingress: () => (pids.ingress ? [pids.ingress] : []),
      worker: () => (pids.worker ? [pids.worker] : []),
      nats: () => pidsByName("nats-server"),
      postgres: () => pidsByName("postgres").filter((pid) => pids.database === undefined || ownPostgresProcess(pid, pids.database))
    }
  }

  begin(): CpuTracking {
    return new CpuTracking(this.groups)
  }
}

/**
 * Client backends show `postgres: 15/main: <user> <database> <host>(<port>) <state>`; server processes (postmaster,
 * walwriter, checkpointer, ...) do not. Backends of other databases belong to whoever else uses the server.
 */
const ownPostgresProcess = (pid: number, database: string): boolean => {
  try {
    const title = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim()
    const backend = /: \S+ (\S+) [\d.:[\]a-f]+\(\d+\)/.exec(title)
    return backend === null || backend[1] === database
  } catch {
    return false
  }
}

const benchCpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

/** Sum of the reservation partitions' backlog: not yet delivered (pending) and delivered but unacked. */
export const consumerBacklog = async (jsm: JetStreamManager, namespace: string, partitions: number) => {
  let pending = 0
  let ackPending = 0
  await Promise.all(Array.from({ length: partitions }, async (_, p) => {
    const info = await jsm.consumers.info(ingressStream(namespace), consumerName(namespace, "reservation", p))
    pending += info.num_pending
    ackPending += info.num_ack_pending
  }))
  return { pending, ack_pending: ackPending }
}

/** The ingress's own durations of one route's 2xx answers in a phase (its duration histogram). */
export interface ServerDurations {
  readonly requests: number
  readonly mean_ms: number
  readonly over_10ms: number
  readonly over_25ms: number
}

export interface PhaseObservation {
  readonly cpu_cores: Record<string, number>
  /** Main-thread time on CPU and waiting for a CPU, as a share of wall time (postgres: summed over its processes). */
  readonly sched: Record<string, { on_cpu: number; run_queue_wait: number }>
  readonly worker_rss_mb: { start: number; end: number; max: number }
  readonly ingress_rss_mb: { start: number; end: number; max: number }
  readonly backlog: { max_pending: number; max_ack_pending: number; mean_ack_pending: number }
  /** Ack latency of a 1-in-flight JetStream publish (probe stream), sampled every 50 ms during the phase. */
  readonly probe_js_ack_ms: ReturnType<Latencies["summary"]>
  /** Latency of a one-row autocommit INSERT (one commit + WAL flush), sampled every 50 ms during the phase. */
  readonly probe_pg_commit_ms: ReturnType<Latencies["summary"]>
  readonly pg: Record<string, number>
  /** Time inside the ingress per 2xx request (mean, answers over 10 and 25 ms), from its own /metrics histogram, by route. */
  readonly ingress_server_ms: Record<string, ServerDurations>
}

export interface ObserverDeps {
  readonly meter: CpuMeter
  readonly jsm: JetStreamManager
  readonly js: JetStreamClient
  readonly sql: postgres.Sql
  readonly namespace: string
  readonly partitions: number
  readonly workerPid: number
  readonly ingressPid: number
  readonly ingressUrl: string
  readonly probeSubject: string
  readonly databaseName: string
}

/**
 * Counters reported as their change over the phase rather than per second: the checkpoints PostgreSQL made
 * (cluster-wide), few and long. A checkpoint's sync on this machine's disk is a suspect whenever a phase stalls for
 * seconds (the single phase after the 1,000,000-reservation run, 29 November: p99 3.7 s, 23 MB/s of WAL), and the
 * record should say whether one ran.
 */
const PHASE_TOTALS = ["checkpoints", "checkpoint_write_ms", "checkpoint_sync_ms", "checkpoint_buffers"] as const

/** PostgreSQL counters of the bench database, of the WAL and of the checkpoints (cluster-wide) whose deltas describe a phase. */
const pgCounters = async (sql: postgres.Sql, db: string): Promise<Record<string, number>> => {
  const [d] = await sql`
    SELECT xact_commit::float8 AS commits, xact_rollback::float8 AS rollbacks, deadlocks::float8 AS deadlocks,
      tup_inserted::float8 AS inserted, tup_updated::float8 AS updated, tup_deleted::float8 AS deleted,
      tup_fetched::float8 AS fetched, blks_read::float8 AS blks_read
    FROM pg_stat_database WHERE datname = ${db}`
  const [w] = await sql`SELECT wal_records::float8 AS wal_records, wal_bytes::float8 AS wal_bytes, wal_write::float8 AS wal_writes, wal_sync::float8 AS wal_syncs FROM pg_stat_wal`
  const [c] = await sql`
    SELECT (checkpoints_timed + checkpoints_req)::float8 AS checkpoints, checkpoint_write_time::float8 AS checkpoint_write_ms,
      checkpoint_sync_time::float8 AS checkpoint_sync_ms, buffers_checkpoint::float8 AS checkpoint_buffers
    FROM pg_stat_bgwriter`
  return { ...(d as unknown as Record<string, number>), ...(w as unknown as Record<string, number>), ...(c as unknown as Record<string, number>) }
}

/**
 * The duration histogram's bucket bounds (s, as `le` writes them) the report counts answers beyond, by report key: the
 * ingress's own view of a tail.
 */
const SERVER_BOUNDS = { over_10ms: "0.01", over_25ms: "0.025" } as const
const BOUND_LABELS: ReadonlyArray<string> = Object.values(SERVER_BOUNDS)

type Durations = { sum: number; count: number; within: Record<string, number> }

/**
 * Sum, count and the answers within each of SERVER_BOUNDS of the ingress's own request-duration histogram (GET
 * /metrics, Prometheus text), per route, for 2xx answers: the time spent inside the server, to compare with what the
 * client measured.
 */
export const scrapeHttpDurations = async (baseUrl: string): Promise<Record<string, Durations>> => {
  const out: Record<string, Durations> = {}
  for (const line of await metricsLines(baseUrl) ?? []) {
    const m = /^gep_http_request_duration_seconds_(sum|count|bucket)\{([^}]*)\}\s+([\d.eE+-]+)$/.exec(line)
    if (!m) continue
    const route = /route="([^"]*)"/.exec(m[2]!)?.[1] ?? "?"
    const status = /status="([^"]*)"/.exec(m[2]!)?.[1] ?? ""
    if (!status.startsWith("2")) continue
    const e = (out[route] ??= { sum: 0, count: 0, within: {} })
    if (m[1] !== "bucket") e[m[1] as "sum" | "count"] += Number(m[3])
    else {
      const le = /le="([^"]*)"/.exec(m[2]!)?.[1] ?? ""
      if (BOUND_LABELS.includes(le)) e.within[le] = (e.within[le] ?? 0) + Number(m[3])
    }
  }
  return out
}

/** The lines of a process's GET /metrics (Prometheus text); undefined when it does not answer (metrics are optional evidence). */
const metricsLines = async (baseUrl: string): Promise<Array<string> | undefined> => {
  try {
    return (await (await fetch(`${baseUrl}/metrics`)).text()).split("\n")
  } catch {
    return undefined
  }
}

/** The ingress's admission limit now (its `gep_admission` gauge: limit, in_flight, flood); undefined when /metrics does not answer. */
export const scrapeAdmission = async (baseUrl: string): Promise<Record<string, number> | undefined> => {
  const lines = await metricsLines(baseUrl)
  if (lines === undefined) return undefined
  const out: Record<string, number> = {}
  for (const line of lines) {
    const m = /^gep_admission\{measure="(\w+)"\}\s+([\d.eE+-]+)$/.exec(line)
    if (m) out[m[1]!] = Number(m[2])
  }
  return out
}

/**
 * The ingress's pauses from its default Node metrics: garbage-collection time by kind (cumulative) and the event loop's
 * longest delay since the last scrape (prom-client resets that histogram on each scrape).
 */
export const scrapePauses = async (baseUrl: string): Promise<{ gc_s: Record<string, number>; loop_max_ms: number } | undefined> => {
  const lines = await metricsLines(baseUrl)
  if (lines === undefined) return undefined
  const gc_s: Record<string, number> = {}
  let loop_max_ms = 0
  for (const line of lines) {
    const gc = /^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\}\s+([\d.eE+-]+)$/.exec(line)
    if (gc) gc_s[gc[1]!] = Number(gc[2])
    const lag = /^nodejs_eventloop_lag_max_seconds\s+([\d.eE+-]+)$/.exec(line)
    if (lag) loop_max_ms = round(Number(lag[1]) * 1000, 1)
  }
  return { gc_s, loop_max_ms }
}

/** Observes one phase: call `stop()` at its end. */
export const observe = (deps: ObserverDeps) => {
  const cpu = deps.meter.begin()
  const started = performance.now()
  const w0 = memoryOf(deps.workerPid).rss_mb
  const i0 = memoryOf(deps.ingressPid).rss_mb
  let wMax = w0, iMax = i0
  let maxPending = 0, maxAckPending = 0, ackSum = 0, ackN = 0
  const jsAck = new Latencies()
  const pgCommit = new Latencies()
  let running = true
  const pgStart = pgCounters(deps.sql, deps.databaseName)
  const httpStart = scrapeHttpDurations(deps.ingressUrl)

  const memTimer = setInterval(() => {
    wMax = Math.max(wMax, memoryOf(deps.workerPid).rss_mb)
    iMax = Math.max(iMax, memoryOf(deps.ingressPid).rss_mb)
  }, 1_000)
  const backlogLoop = (async () => {
    while (running) {
      try {
        const b = await consumerBacklog(deps.jsm, deps.namespace, deps.partitions)
        maxPending = Math.max(maxPending, b.pending)
        maxAckPending = Math.max(maxAckPending, b.ack_pending)
        ackSum += b.ack_pending
        ackN++
      } catch {
        // a slow answer under load is not a reason to stop observing
      }
      await new Promise((r) => setTimeout(r, 2_000))
    }
  })()
  const probeLoop = (async () => {
    let n = 0
    while (running) {
      const t0 = performance.now()
      try {
        await deps.js.publish(deps.probeSubject, new Uint8Array(300), { msgID: `probe-${process.pid}-${Date.now()}-${n++}` })
        jsAck.add(performance.now() - t0)
      } catch {
        // counted by absence
      }
      const t1 = performance.now()
      try {
        await deps.sql`INSERT INTO bench_probe (at) VALUES (now())`
        pgCommit.add(performance.now() - t1)
      } catch {
        // idem
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  })()

  return {
    stop: async (): Promise<PhaseObservation> => {
      running = false
      clearInterval(memTimer)
      const reading = cpu.end()
      await Promise.all([backlogLoop, probeLoop])
      const before = await pgStart
      const after = await pgCounters(deps.sql, deps.databaseName)
      const seconds = (performance.now() - started) / 1000
      const pg: Record<string, number> = {}
      const totals: ReadonlyArray<string> = PHASE_TOTALS
      for (const k of Object.keys(after)) {
        if (!totals.includes(k)) pg[`${k}_per_s`] = round(((after[k] ?? 0) - (before[k] ?? 0)) / seconds, 1)
      }
      pg.wal_syncs_per_commit = round(((after.wal_syncs ?? 0) - (before.wal_syncs ?? 0)) / Math.max(1, (after.commits ?? 0) - (before.commits ?? 0)), 3)
      for (const k of totals) pg[k] = round((after[k] ?? 0) - (before[k] ?? 0))
      const h0 = await httpStart
      const h1 = await scrapeHttpDurations(deps.ingressUrl)
      const server_ms: Record<string, ServerDurations> = {}
      for (const [route, e] of Object.entries(h1)) {
        const count = e.count - (h0[route]?.count ?? 0)
        if (count === 0) continue
        // Answers the ingress itself took longer than 10 and 25 ms over (from the request's routing to its answer; the
        // wait in the socket before Node reads it is not in it): beside the client's percentiles, where a tail comes from.
        const beyond = (le: string) => count - ((e.within[le] ?? 0) - (h0[route]?.within[le] ?? 0))
        server_ms[route] = { requests: count, mean_ms: round((1000 * (e.sum - (h0[route]?.sum ?? 0))) / count), over_10ms: beyond(SERVER_BOUNDS.over_10ms), over_25ms: beyond(SERVER_BOUNDS.over_25ms) }
      }
      const w1 = memoryOf(deps.workerPid).rss_mb
      const i1 = memoryOf(deps.ingressPid).rss_mb
      return {
        cpu_cores: reading.cores,
        sched: reading.sched,
        worker_rss_mb: { start: w0, end: w1, max: Math.max(wMax, w1) },
        ingress_rss_mb: { start: i0, end: i1, max: Math.max(iMax, i1) },
        backlog: { max_pending: maxPending, max_ack_pending: maxAckPending, mean_ack_pending: ackN === 0 ? 0 : round(ackSum / ackN) },
        probe_js_ack_ms: jsAck.summary(),
        probe_pg_commit_ms: pgCommit.summary(),
        pg,
        ingress_server_ms: server_ms
      }
    }
  }
}

/** Waits until the reservation consumers hold nothing (a previous overloaded phase's backlog is worked off). */
export const waitDrained = async (jsm: JetStreamManager, namespace: string, partitions: number, maxMs: number): Promise<number> => {
  const start = performance.now()
  for (;;) {
    const b = await consumerBacklog(jsm, namespace, partitions).catch(() => ({ pending: 1, ack_pending: 1 }))
    if (b.pending + b.ack_pending === 0 || performance.now() - start > maxMs) return round((performance.now() - start) / 1000, 1)
    await new Promise((r) => setTimeout(r, 500))
  }
}
