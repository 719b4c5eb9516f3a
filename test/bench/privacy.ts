import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream"
import type { Agent } from "node:http"
import type postgres from "postgres"
import { eraseStore } from "../../core/privacy/erase.ts"
import type { Subject } from "../../core/privacy/store.ts"
import { PrivacyStores } from "../../core/privacy/stores/registry.ts"
import { streamMarks } from "../../streams/drain.ts"
import { eraseStreamMessages } from "../../streams/eraseMessages.ts"
import { exchange, Latencies, round } from "./load.ts"
import { benchSubscription, contactIdOf, fillGuests, FULL_SHAPE_EVERY, guestEmail, guestPhone } from "./privacyFill.ts"

// Privacy (issue 26) on an account of its own (100,000 guests by default, filled by SQL: test/bench/privacyFill.ts):
// what a suppression costs the caller, how long an export and an erasure take from their 202 to `completed` through
// the API and the workers' runner, where an erasure's time goes (its saved step, polled), and which stores' erasure
// grows with the account: every store timed on a tenth of the account and again on the whole, in this process with
// the runner's own code (core/privacy/erase.ts). The only bounds: erasure within 7 days ("typically minutes"),
// export within 72 hours.

const STEP_POLL_MS = 25
/** Rows per erase batch, as the runner's (src/privacy/erasureSteps.ts). */
const BATCH = 500
/** An erasure or export not completed by then is reported as it stands. */
const GIVE_UP_MS = 30 * 60_000

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; data: Record<string, any> }>

const subjectOf = (tenantId: string, contactId: string, i: number): Subject => ({
  scope: { tenant_id: tenantId, sandbox: false },
  contactIds: [contactId],
  identifiers: [{ kind: "email", value: guestEmail(i) }, { kind: "phone", value: guestPhone(i) }]
})

/** Runs of each store timed: the first erases, the rest find nothing left and time the search alone. */
const STORE_RUNS = 5

/**
 * Each store of the registry erased for one subject, in the runner's order, run STORE_RUNS times: the rows the first
 * erased, and the median time (one run on this shared machine is noise; the search dominates every run).
 */
const timeStores = async (sql: postgres.Sql, subject: Subject) => {
  const out: Record<string, { ms: number; first_ms: number; count: number }> = {}
  for (const store of PrivacyStores) {
    const times: Array<number> = []
    let count = 0
    for (let run = 0; run < STORE_RUNS; run++) {
      const started = performance.now()
      const erased = await eraseStore(sql, store, subject, BATCH)
      times.push(performance.now() - started)
      if (run === 0) count = erased.count
    }
    const sorted = [...times].sort((a, b) => a - b)
    out[store.store] = { ms: round(sorted[Math.floor(STORE_RUNS / 2)]!), first_ms: round(times[0]!), count }
  }
  return out
}

/**
 * The stream erasure's scan over every stream of the deployment up to now, matching nothing (so deleting nothing):
 * the rate at which an erasure reads retained messages (the runner logs the same figures at info, which the bench's
 * processes do not print).
 */
const timeStreamScan = async (nats: { readonly js: JetStreamClient; readonly jsm: JetStreamManager }, namespace: string) => {
  const marks = await streamMarks(nats.jsm, namespace)
  const scanned: Record<string, number> = {}
  const started = performance.now()
  await eraseStreamMessages(nats, namespace, marks, () => false, { onProgress: (p) => { scanned[p.stream] = p.scanned } })
  const ms = performance.now() - started
  const total = Object.values(scanned).reduce((a, b) => a + b, 0)
  return { messages_scanned: total, ms: round(ms), per_s: ms > 0 ? round((total / ms) * 1000, 0) : null, by_stream: scanned }
}

/**
 * The request's saved step, polled until it ends: how long it stood at each (null = the settle wait before the first
 * drain; `erase` = the stores; `streams` = the retained messages; `final` = the stores again; `notify` = contact.deleted
 * and the audit row). A step shorter than the poll may be missed: its time counts in the one seen next.
 */
const followRequest = async (sql: postgres.Sql, id: string) => {
  const started = performance.now()
  const steps: Record<string, number> = {}
  let current = "wait"
  let since = started
  for (;;) {
    const [row] = await sql`SELECT coalesce(step, 'wait') AS step, status FROM privacy_requests WHERE id = ${id}`
    const now = performance.now()
    const step = row!.step as string
    const ended = !["received", "running"].includes(row!.status as string)
    if (step !== current || ended) {
      steps[current] = round((steps[current] ?? 0) + now - since)
      current = step
      since = now
    }
    if (ended || now - started > GIVE_UP_MS) return { status: row!.status as string, ms: round(now - started), steps }
    await new Promise((r) => setTimeout(r, STEP_POLL_MS))
  }
}

export const privacyPhase = async (o: {
  readonly sql: postgres.Sql
  readonly agent: Agent
  readonly port: number
  /** A tenant of the phase's own, a hotel, and a key holding `privacy:write` (which `*` does not grant). */
  readonly tenantId: string
  readonly hotelId: string
  readonly key: string
  readonly nats: { readonly js: JetStreamClient; readonly jsm: JetStreamManager }
  readonly namespace: string
  readonly contacts: number
  readonly suppressions: number
}) => {
  const call: Call = async (method, path, body) => {
    const res = await exchange(o.agent, o.port, {
      method, path, headers: { authorization: `Bearer ${o.key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`)
    return { status: res.status, data: (JSON.parse(res.body) as { data: Record<string, any> }).data }
  }
  const ask = (type: string, i: number) => call("POST", "/api/v1/privacy/requests", { type, subject: { email: guestEmail(i) } })
  /** One request from its 202 to its end, through the runner. */
  const carriedOut = async (type: "export" | "erase", i: number) => {
    const created = await ask(type, i)
    const followed = await followRequest(o.sql, created.data.request_id as string)
    const view = (await call("GET", `/api/v1/privacy/requests/${created.data.request_id}`)).data
    return { ...followed, results: view.results as Array<{ store: string; action: string; count: number }>, download_url: view.download_url !== null }
  }

  // A tenth of the account first, its stores timed on one subject; then the rest.
  const part = Math.max(FULL_SHAPE_EVERY * 2, Math.round(o.contacts / 10))
  const subscriptionId = await benchSubscription(o.sql, o.tenantId)
  const t0 = performance.now()
  await fillGuests(o.sql, { tenantId: o.tenantId, hotelId: o.hotelId, subscriptionId, from: 1, to: part })
  const small = FULL_SHAPE_EVERY
  const storesAtTenth = await timeStores(o.sql, subjectOf(o.tenantId, await contactIdOf(o.sql, o.tenantId, small), small))
  await fillGuests(o.sql, { tenantId: o.tenantId, hotelId: o.hotelId, subscriptionId, from: part + 1, to: o.contacts })
  const fillS = round((performance.now() - t0) / 1000)

  // Suppressions on distinct guests (none of the subjects below: their numbers end in 7).
  const suppress = new Latencies()
  for (let k = 0; k < o.suppressions; k++) {
    const started = performance.now()
    const answer = await ask("suppress", 10 * k + 7)
    suppress.add(performance.now() - started)
    if (answer.data.status !== "completed") throw new Error(`suppress answered ${JSON.stringify(answer.data)}`)
  }

  // One subject of the whole account exported, then erased; another's stores timed as on the tenth.
  const last = Math.floor(o.contacts / FULL_SHAPE_EVERY) * FULL_SHAPE_EVERY
  const subject = last
  const exported = await carriedOut("export", subject)
  const erased = await carriedOut("erase", subject)
  const other = last - FULL_SHAPE_EVERY
  const storesAtWhole = await timeStores(o.sql, subjectOf(o.tenantId, await contactIdOf(o.sql, o.tenantId, other), other))
  const streams = await timeStreamScan(o.nats, o.namespace)

  const settleMs = erased.steps.wait ?? 0
  const sum = (stores: Record<string, { ms: number }>) => round(Object.values(stores).reduce((a, s) => a + s.ms, 0))
  return {
    contacts: o.contacts,
    fill_s: fillS,
    suppress_p50_ms: suppress.summary().p50,
    suppress_latency_ms: suppress.summary(),
    export_ms: exported.ms,
    export_status: exported.status,
    export_results: exported.results,
    erase_status: erased.status,
    erase_total_ms: erased.ms,
    erase_settle_ms: settleMs,
    erase_settle_share: erased.ms > 0 ? round(settleMs / erased.ms, 3) : null,
    erase_without_settle_ms: round(erased.ms - settleMs),
    erase_steps_ms: erased.steps,
    erase_results: erased.results,
    stream_scan: streams,
    stores: {
      contacts_at_tenth: part,
      at_tenth_total_ms: sum(storesAtTenth),
      at_whole_total_ms: sum(storesAtWhole),
      at_tenth: storesAtTenth,
      at_whole: storesAtWhole
    }
  }
}

export type PrivacyResult = Awaited<ReturnType<typeof privacyPhase>>
