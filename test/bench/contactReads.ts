import { PROFILE_STATEMENT } from "../../src/contact/profile.ts"
import { TIMELINE_STATEMENTS } from "../../src/contact/timeline.ts"
import { type PlanNode, scans } from "./explain.ts"
import { exchange, Latencies, type PlatformPhase, round } from "./load.ts"
import { machineCpu, type PhaseObservation, pidsByName, processCpuSeconds, scrapePauses } from "./probes.ts"
import { type CpuProfile, type ProfileSummary, startProfile, summarise } from "./profiler.ts"

/**
 * The read phase (issue 24): GET /api/v1/contacts/{id} and GET /api/v1/contacts/{id}/timeline?limit=50, each open loop
 * at `rate` requests/s on the database part (d) filled (latency from the scheduled instant, so queueing is not hidden).
 * Profiles are read for contacts drawn at random from the whole table; timelines for contacts given 60 core events
 * each first (part d's contacts hold a few booking events each), so every timeline answer is a full page of 50.
 */

const TIMELINE_CONTACTS = 50
/**
 * Seconds of each route at the rate before it is measured: the first requests of a process find its pool's
 * connections without their prepared statements (the timeline's is planned on each, ~13 index-scan branches) and the
 * pages out of the buffer cache, which is start-up, not the steady state the target is about.
 */
const WARM_UP_S = 5
const EVENTS_EACH = 60

interface Read {
  readonly rate_per_s: number
  readonly duration_s: number
  readonly requests: number
  readonly achieved_per_s: number
  readonly statuses: Record<string, number>
  /** Answers that were 200 but not what was asked (a timeline page short of 50 items). */
  readonly incomplete: number
  readonly unfinished: number
  /** From the scheduled instant (queueing in the generator included, as a client waiting for its turn would see it). */
  readonly latency_ms: ReturnType<Latencies["summary"]>
  /** From the moment the request was handed to the socket pool: the platform's part, without the generator's own lag. */
  readonly service_latency_ms: ReturnType<Latencies["summary"]>
  /** The generator's longest delay between a request's scheduled instant and its sending (it shares the machine). */
  readonly max_schedule_lag_ms: number
  /** Answers over the target (20 ms) by the second of the phase they were sent in: a burst or a spread. */
  readonly over_20ms_by_second: Record<string, number>
  /** Cores used in each second of the phase, by process, and by the whole machine: a burst of slow answers next to a burst of some process's work. */
  readonly cores_by_second?: ReadonlyArray<Record<string, number>>
  /** CPU per process, scheduling, commit and publish probes and the ingress's own time, over the phase. */
  readonly observed?: PhaseObservation
}

/** What the phase is given besides the platform: its observer, and where to profile (when the run profiles). */
export interface ReadsObservation {
  readonly pids: { readonly ingress: number; readonly worker: number }
  readonly ingressUrl: string
  readonly observe: () => { stop: () => Promise<PhaseObservation> }
  readonly profiles?: { readonly ingressInspectorUrl: string; readonly file: (name: string) => string }
}

const openLoopGet = async (
  o: PlatformPhase, rate: number, path: () => string, complete: (body: string) => boolean
): Promise<Read> => {
  const headers = { authorization: `Bearer ${o.coreKey}` }
  const latencies = new Latencies()
  const service = new Latencies()
  let maxLag = 0
  const statuses: Record<string, number> = {}
  let incomplete = 0
  const over: Record<string, number> = {}
  const total = Math.round(rate * o.durationS)
  const pending = new Set<Promise<void>>()
  const start = performance.now()
  let sent = 0
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1)
    for (; sent < due; sent++) {
      const scheduled = start + (sent * 1000) / rate
      const handed = performance.now()
      maxLag = Math.max(maxLag, handed - scheduled)
      const p: Promise<void> = exchange(o.agent, o.port, { method: "GET", path: path(), headers }).then((answer) => {
        const end = performance.now()
        const ms = end - scheduled
        latencies.add(ms)
        service.add(end - handed)
        if (ms > 20) {
          const second = Math.floor((scheduled - start) / 1000)
          over[second] = (over[second] ?? 0) + 1
        }
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
        if (answer.status === 200 && !complete(answer.body)) incomplete++
        pending.delete(p)
      })
      pending.add(p)
    }
    await new Promise((r) => setTimeout(r, 1))
  }
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 15_000))])
  const seconds = (performance.now() - start) / 1000
  return {
    rate_per_s: rate, duration_s: round(seconds), requests: latencies.count, achieved_per_s: round(latencies.count / seconds),
    statuses, incomplete, unfinished: pending.size, latency_ms: latencies.summary(),
    service_latency_ms: service.summary(), max_schedule_lag_ms: round(maxLag), over_20ms_by_second: over
  }
}

const observed = async (watch: ReadsObservation, run: () => Promise<Read>): Promise<Read> => {
  const obs = watch.observe()
  const reading = () => ({
    ingress: processCpuSeconds(watch.pids.ingress), worker: processCpuSeconds(watch.pids.worker),
    postgres: pidsByName("postgres").reduce((sum, pid) => sum + processCpuSeconds(pid), 0), machine: machineCpu().busy
  })
  const cores: Array<Record<string, number>> = []
  let last = reading()
  let pauses = await scrapePauses(watch.ingressUrl)
  const sampler = setInterval(() => {
    const now = reading()
    const second: Record<string, number> = Object.fromEntries(Object.entries(now).map(([k, v]) => [k, round(v - last[k as keyof typeof last], 2)]))
    last = now
    const index = cores.push(second) - 1
    // The ingress's garbage-collection time and longest event-loop delay in the same second, filled in when its
    // /metrics answers: a burst of slow answers next to a pause of the process serving them.
    void scrapePauses(watch.ingressUrl).then((p) => {
      if (p && pauses) {
        const gc = (kind?: string) => Object.entries(p.gc_s).filter(([k]) => kind === undefined || k === kind)
          .reduce((sum, [k, v]) => sum + v - (pauses!.gc_s[k] ?? 0), 0)
        cores[index] = { ...cores[index], ingress_gc_ms: round(gc() * 1000, 1), ingress_major_gc_ms: round(gc("major") * 1000, 1), ingress_loop_max_ms: p.loop_max_ms }
      }
      pauses = p ?? pauses
    })
  }, 1_000)
  const read = await run().finally(() => clearInterval(sampler))
  return { ...read, observed: await obs.stop(), cores_by_second: cores }
}

export const contactReadsPhase = async (o: PlatformPhase & { readonly rate: number; readonly watch: ReadsObservation }) => {
  const sampled = await o.sql`SELECT id FROM contacts TABLESAMPLE SYSTEM (5) WHERE tenant_id = ${o.tenantId} AND NOT sandbox LIMIT 5000`
  const contacts = sampled.length > 0
    ? sampled.map((r) => r.id as string)
    : (await o.sql`SELECT id FROM contacts WHERE tenant_id = ${o.tenantId} AND NOT sandbox LIMIT 5000`).map((r) => r.id as string)
  if (contacts.length < TIMELINE_CONTACTS) throw new Error(`read phase: only ${contacts.length} contacts in the database`)
  const busy = contacts.slice(0, TIMELINE_CONTACTS)
  // Their history through the API, as a partner would write it (core events are timeline items of kind `event`).
  const seedStart = performance.now()
  const seedStatuses: Record<string, number> = {}
  await Promise.all(busy.map(async (contactId, c) => {
    for (let i = 0; i < EVENTS_EACH; i++) {
      const body = JSON.stringify({ event_type: "bench.read_seed", contact_id: contactId, idempotency_key: `read-${o.runId}-${c}-${i}`, payload: { i } })
      const answer = await exchange(o.agent, o.port, {
        method: "POST", path: "/api/v1/events", headers: { authorization: `Bearer ${o.coreKey}`, "content-type": "application/json" }, body
      })
      seedStatuses[answer.status] = (seedStatuses[answer.status] ?? 0) + 1
    }
  }))
  const seed = { contacts: busy.length, events_each: EVENTS_EACH, statuses: seedStatuses, seconds: round((performance.now() - seedStart) / 1000) }
  // The planner's statistics as a running database has them: this machine's PostgreSQL runs with autovacuum off (its
  // CI configuration), so tables filled by part (d) were never analysed, and a plan chosen on empty-table estimates
  // (events of a tenant: 281 rows estimated, 59,683 real at 50,000 reservations) made one timeline page 10 ms of index
  // scans instead of 1 ms. Production runs autovacuum, which analyses a table after 10 % of it changed.
  const analyseStart = performance.now()
  await o.sql`ANALYZE`
  const analysed_s = round((performance.now() - analyseStart) / 1000)
  // What PostgreSQL spends on one timeline page: planning (a custom plan, as the first executions of a prepared
  // statement get) and running it.
  const [plan] = await o.sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${TIMELINE_STATEMENTS.first}`, [busy[0]!, o.tenantId, false, 51])
  const planned = (plan!["QUERY PLAN"] as Array<{ "Planning Time": number; "Execution Time": number }>)[0]!
  const timeline_statement_ms = { planning: round(planned["Planning Time"]), execution: round(planned["Execution Time"]) }
  const timeline_plan = (await o.sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${TIMELINE_STATEMENTS.first}`, [busy[0]!, o.tenantId, false, 51]))
    .map((r) => r["QUERY PLAN"] as string)
  // The profile's one statement under the plan a prepared statement settles on (generic, after five runs): what it
  // costs, and which scans it makes (by the contact's indexes, whatever the contact).
  const profile_statement = await o.sql.begin(async (tx) => {
    await tx`SET LOCAL plan_cache_mode = force_generic_plan`
    const [row] = await tx.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${PROFILE_STATEMENT}`, [contacts[0]!, o.tenantId, false])
    const p = (row!["QUERY PLAN"] as Array<{ "Planning Time": number; "Execution Time": number; Plan: PlanNode }>)[0]!
    return { planning_ms: round(p["Planning Time"]), execution_ms: round(p["Execution Time"]), generic_plan_scans: scans(p.Plan) }
  })
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(Math.random() * xs.length)]!
  const profilePath = () => `/api/v1/contacts/${pick(contacts)}`
  const timelinePath = () => `/api/v1/contacts/${pick(busy)}/timeline?limit=50`
  const fullPage = (body: string) => (JSON.parse(body) as { data: { items: Array<unknown> } }).data.items.length === 50
  const warmUp = (path: () => string) => openLoopGet({ ...o, durationS: WARM_UP_S }, o.rate, path, () => true)
  await warmUp(profilePath)
  const profile = await observed(o.watch, () => openLoopGet(o, o.rate, profilePath, () => true))
  await warmUp(timelinePath)
  const timeline = await observed(o.watch, () => openLoopGet(o, o.rate, timelinePath, fullPage))
  // Where the ingress's time goes while it serves both routes, in a pass of its own after the measured ones (the
  // sampling profiler costs a little), half of each route's requests interleaved.
  let ingress_profile: ProfileSummary | undefined
  if (o.watch.profiles) {
    const profiling = await startProfile(o.watch.profiles.ingressInspectorUrl)
    let n = 0
    await openLoopGet({ ...o, durationS: Math.min(o.durationS, 15) }, o.rate, () => (n++ % 2 === 0 ? profilePath() : timelinePath()), () => true)
    const cpu: CpuProfile = await profiling.stop()
    ingress_profile = summarise(cpu, o.watch.profiles.file("reads-ingress"), 15)
  }
  return { contacts_sampled: contacts.length, seed, analysed_s, profile_statement, timeline_statement_ms, timeline_plan, warm_up_s: WARM_UP_S, profile, timeline, ingress_profile }
}
