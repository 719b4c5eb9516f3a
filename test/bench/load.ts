/**
 * HTTP load generator (in the bench process): node:http keep-alive agent with a bounded socket pool.
 *
 * - closed loop: N concurrent clients, each sends its next request when the previous answered (max throughput);
 * - open loop: requests are *scheduled* at a fixed rate whatever the answers do, and latency is measured from the
 *   scheduled instant (no coordinated omission: a stalled server shows up as latency, not as a lower send rate).
 */
import { Agent, request as httpRequest } from "node:http"
import type postgres from "postgres"

export interface Target {
  readonly host: string
  readonly port: number
  readonly key: string
}

export interface Outcome {
  readonly status: number
  readonly body: string
}

/** What a phase that sets its family up through the API and then drives it is given. */
export interface PlatformPhase {
  readonly sql: postgres.Sql
  readonly agent: Agent
  readonly port: number
  readonly baseUrl: string
  readonly coreKey: string
  readonly tenantId: string
  readonly runId: string
  readonly durationS: number
}

export const makeAgent = (maxSockets: number) => new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: "fifo" })

/** One request to the platform on 127.0.0.1 through the pool: its status and body (-1 when no answer came). */
export const exchange = (
  agent: Agent, port: number, request: { method: string; path: string; headers: Record<string, string>; body?: string | undefined }
): Promise<Outcome> =>
  new Promise((resolve) => {
    const { body } = request
    const headers = body === undefined ? request.headers : { ...request.headers, "content-length": String(Buffer.byteLength(body)) }
    const req = httpRequest({ agent, host: "127.0.0.1", port, method: request.method, path: request.path, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", () => resolve({ status: -1, body: "" }))
    })
    req.setTimeout(60_000, () => req.destroy(new Error("client timeout")))
    req.on("error", () => resolve({ status: -1, body: "" }))
    req.end(body)
  })

export const post = (agent: Agent, target: Target, path: string, body: string): Promise<Outcome> =>
  exchange(agent, target.port, { method: "POST", path, headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" }, body })

/** Latencies in ms, kept compactly; percentiles by sorting once. */
export class Latencies {
  private data = new Float64Array(1024)
  count = 0

  add(ms: number) {
    if (this.count === this.data.length) {
      const next = new Float64Array(this.data.length * 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.count++] = ms
  }

  summary() {
    const sorted = this.data.slice(0, this.count).sort()
    const at = (q: number) => (this.count === 0 ? null : round(sorted[Math.min(this.count - 1, Math.ceil(q * this.count) - 1)]!))
    let sum = 0
    for (let i = 0; i < this.count; i++) sum += sorted[i]!
    return {
      count: this.count,
      mean: this.count === 0 ? null : round(sum / this.count),
      p50: at(0.5),
      p90: at(0.9),
      p95: at(0.95),
      p99: at(0.99),
      p999: at(0.999),
      max: this.count === 0 ? null : round(sorted[this.count - 1]!)
    }
  }
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

/** What one request carried and how its answer is judged. */
export interface Job {
  readonly path: string
  readonly body: string
  /** Reservations in the request (1 for the single endpoint, up to 50 for a batch). */
  readonly items: number
}

export interface Judged {
  /** Reservations answered 2xx with every guest's contact id. */
  readonly ok: number
  readonly created: number
  readonly updated: number
  /** Reservations that failed (non-2xx, or an item failure in a batch). */
  readonly failed: number
  /** 2xx reservations whose answer lacks a contact id for a guest (should be 0). */
  readonly missingContactIds: number
  /** Batch answers: the status of each item. */
  readonly itemStatuses?: ReadonlyArray<number>
}

interface ReservationData {
  readonly contacts?: ReadonlyArray<{ readonly contact_id: string | null }>
}

const contactsComplete = (data: ReservationData | undefined) =>
  Array.isArray(data?.contacts) && data.contacts.length > 0 && data.contacts.every((c) => typeof c.contact_id === "string")

/** Judges an answer of the single or batch endpoint. */
export const judge = (job: Job, outcome: Outcome): Judged => {
  if (outcome.status < 200 || outcome.status >= 300) return { ok: 0, created: 0, updated: 0, failed: job.items, missingContactIds: 0 }
  let parsed: { data?: unknown }
  try {
    parsed = JSON.parse(outcome.body) as { data?: unknown }
  } catch {
    return { ok: 0, created: 0, updated: 0, failed: job.items, missingContactIds: 0 }
  }
  if (job.items === 1 && !job.path.endsWith("/batch")) {
    const complete = contactsComplete(parsed.data as ReservationData)
    return {
      ok: complete ? 1 : 0,
      created: outcome.status === 201 ? 1 : 0,
      updated: outcome.status === 200 ? 1 : 0,
      failed: 0,
      missingContactIds: complete ? 0 : 1
    }
  }
  const results = (parsed.data as { results?: ReadonlyArray<{ success: boolean; status: number; data?: ReservationData }> })?.results ?? []
  let ok = 0, created = 0, updated = 0, failed = 0, missing = 0
  for (const r of results) {
    if (!r.success) {
      failed++
      continue
    }
    if (r.status === 201) created++
    else updated++
    if (contactsComplete(r.data)) ok++
    else missing++
  }
  failed += Math.max(0, job.items - results.length)
  return { ok, created, updated, failed, missingContactIds: missing, itemStatuses: results.map((r) => r.status) }
}

export interface LoadResult {
  readonly mode: "closed" | "open"
  readonly path: string
  readonly concurrency?: number
  readonly target_rate_per_s?: number
  readonly duration_s: number
  readonly requests: number
  readonly requests_per_s: number
  readonly reservations_ok: number
  readonly reservations_per_s: number
  readonly created: number
  readonly updated: number
  readonly failed: number
  readonly missing_contact_ids: number
  readonly statuses: Record<string, number>
  /** Batch requests: status of each item (a 200 batch can carry item failures, e.g. 503 not confirmed in time). */
  readonly item_statuses?: Record<string, number>
  /** Request latency in ms (open loop: from the scheduled instant). */
  readonly latency_ms: ReturnType<Latencies["summary"]>
  /** Open loop only: latency from the moment the request was actually handed to the socket pool. */
  readonly service_latency_ms?: ReturnType<Latencies["summary"]>
  /** Open loop only: requests the generator could not schedule on time (its own lag), should be ~0. */
  readonly max_schedule_lag_ms?: number
  /** Open loop only: requests still unanswered at the drain deadline (status 0; latency = time waited, a lower bound). */
  readonly unfinished?: number
}

class Tally {
  requests = 0
  ok = 0
  created = 0
  updated = 0
  failed = 0
  missing = 0
  statuses: Record<string, number> = {}
  itemStatuses: Record<string, number> = {}
  readonly latency = new Latencies()
  readonly service = new Latencies()

  record(job: Job, outcome: Outcome, latencyMs: number, serviceMs?: number) {
    this.requests++
    this.statuses[String(outcome.status)] = (this.statuses[String(outcome.status)] ?? 0) + 1
    const j = judge(job, outcome)
    this.ok += j.ok
    this.created += j.created
    this.updated += j.updated
    this.failed += j.failed
    this.missing += j.missingContactIds
    for (const st of j.itemStatuses ?? []) this.itemStatuses[String(st)] = (this.itemStatuses[String(st)] ?? 0) + 1
    this.latency.add(latencyMs)
    if (serviceMs !== undefined) this.service.add(serviceMs)
  }
}

/**
 * Closed loop: `concurrency` clients until `durationMs` elapsed or `maxItems` reservations were sent.
 * `onProgress` is called about once a second with reservations answered so far.
 */
export const closedLoop = async (options: {
  readonly agent: Agent
  readonly target: Target
  readonly concurrency: number
  readonly next: () => Job | undefined
  readonly durationMs?: number
  readonly onProgress?: (okSoFar: number, elapsedMs: number) => void
}): Promise<LoadResult> => {
  const tally = new Tally()
  const start = performance.now()
  const deadline = options.durationMs === undefined ? Infinity : start + options.durationMs
  let path = ""
  const progress = options.onProgress
    ? setInterval(() => options.onProgress!(tally.ok, performance.now() - start), 1_000)
    : undefined
  const client = async () => {
    for (;;) {
      if (performance.now() >= deadline) return
      const job = options.next()
      if (job === undefined) return
      path = job.path
      const t0 = performance.now()
      const outcome = await post(options.agent, options.target, job.path, job.body)
      tally.record(job, outcome, performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, client))
  if (progress) clearInterval(progress)
  const seconds = (performance.now() - start) / 1000
  return {
    mode: "closed",
    path,
    concurrency: options.concurrency,
    duration_s: round(seconds),
    requests: tally.requests,
    requests_per_s: round(tally.requests / seconds),
    reservations_ok: tally.ok,
    reservations_per_s: round(tally.ok / seconds),
    created: tally.created,
    updated: tally.updated,
    failed: tally.failed,
    missing_contact_ids: tally.missing,
    statuses: tally.statuses,
    ...(Object.keys(tally.itemStatuses).length > 0 ? { item_statuses: tally.itemStatuses } : {}),
    latency_ms: tally.latency.summary()
  }
}

/** Open loop: request i is due at start + i / rate; sent when due (the generator ticks every millisecond). */
export const openLoop = async (options: {
  readonly agent: Agent
  readonly target: Target
  readonly ratePerS: number
  readonly durationMs: number
  readonly next: () => Job
  /** How long to wait for outstanding answers once the schedule is over; the rest count as unfinished. */
  readonly drainMs: number
  /** Every answer as it is recorded (an unfinished request's with status 0): latency from the scheduled instant, and that instant (ms into the run). */
  readonly onAnswer?: (job: Job, outcome: Outcome, latencyMs: number, scheduledMs: number) => void
}): Promise<LoadResult> => {
  const tally = new Tally()
  const start = performance.now()
  const total = Math.round((options.ratePerS * options.durationMs) / 1000)
  const pending = new Map<Promise<void>, { job: Job; scheduled: number }>()
  let sent = 0
  let maxLag = 0
  let path = ""
  while (sent < total) {
    const now = performance.now()
    const due = Math.min(total, Math.floor(((now - start) * options.ratePerS) / 1000) + 1)
    while (sent < due) {
      const scheduled = start + (sent * 1000) / options.ratePerS
      maxLag = Math.max(maxLag, now - scheduled)
      const job = options.next()
      path = job.path
      const handed = performance.now()
      const p: Promise<void> = post(options.agent, options.target, job.path, job.body).then((outcome) => {
        if (!pending.has(p)) return // given up at the drain deadline, already counted
        const end = performance.now()
        tally.record(job, outcome, end - scheduled, end - handed)
        options.onAnswer?.(job, outcome, end - scheduled, scheduled - start)
        pending.delete(p)
      })
      pending.set(p, { job, scheduled })
      sent++
    }
    await new Promise((r) => setTimeout(r, 1))
  }
  const scheduleEnd = performance.now()
  await Promise.race([Promise.all(pending.keys()), new Promise((r) => setTimeout(r, options.drainMs))])
  // Answers still missing at the deadline: unfinished, with their wait so far as a lower bound of their latency.
  const unfinished = pending.size
  const now = performance.now()
  for (const { job, scheduled } of pending.values()) {
    tally.record(job, { status: 0, body: "" }, now - scheduled)
    options.onAnswer?.(job, { status: 0, body: "" }, now - scheduled, scheduled - start)
  }
  pending.clear()
  const seconds = ((unfinished > 0 ? now : Math.max(now, scheduleEnd)) - start) / 1000
  return {
    mode: "open",
    path,
    target_rate_per_s: options.ratePerS,
    duration_s: round(seconds),
    requests: tally.requests,
    requests_per_s: round(tally.requests / seconds),
    reservations_ok: tally.ok,
    reservations_per_s: round(tally.ok / seconds),
    created: tally.created,
    updated: tally.updated,
    failed: tally.failed,
    missing_contact_ids: tally.missing,
    statuses: tally.statuses,
    latency_ms: tally.latency.summary(),
    service_latency_ms: tally.service.summary(),
    max_schedule_lag_ms: round(maxLag),
    unfinished
  }
}

/** `count` people through the guests batch endpoint (500 a request), each with a phone of its own: their contact ids. */
export const createContacts = async (
  agent: Agent, target: Target, count: number, o: { readonly phonePrefix: string; readonly label: string; readonly runId: string }
): Promise<Array<string>> => {
  const contactIds: Array<string> = []
  for (let i = 0; i < count; i += 500) {
    const guests = Array.from({ length: Math.min(500, count - i) }, (_, k) => ({
      phone: `${o.phonePrefix}${String(i + k).padStart(7, "0")}`, first_name: "Bench", last_name: `${o.label}${i + k}`,
      email: `${o.label.toLowerCase()}${o.runId}.${i + k}@gmail.com`
    }))
    const payload = JSON.stringify({ guests })
    let res = await post(agent, target, "/api/v1/guests/batch", payload)
    // A keep-alive socket the ingress closed while it sat idle (the phase before may have been long) fails its next
    // request before any answer (-1); the batch is an upsert of the same people, so sending it again is safe.
    for (let tries = 1; (res.status === -1 || res.status === 503) && tries < 5; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      res = await post(agent, target, "/api/v1/guests/batch", payload)
    }
    if (res.status !== 200) throw new Error(`creating contacts: POST /api/v1/guests/batch answered ${res.status}: ${res.body.slice(0, 300)}`)
    const body = JSON.parse(res.body) as { data?: { results?: Array<{ data?: { contact_id?: string } }> } }
    for (const r of body.data?.results ?? []) if (r.data?.contact_id) contactIds.push(r.data.contact_id)
  }
  return contactIds
}
