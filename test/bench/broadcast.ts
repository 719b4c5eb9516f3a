import type { Agent } from "node:http"
import type postgres from "postgres"
import type { SmtpSink } from "../support/smtpSink.ts"
import { exchange, round } from "./load.ts"
import type { PhaseObservation } from "./probes.ts"
import { type CpuProfile, type ProfileSummary, summarise } from "./profiler.ts"
import { fillContacts } from "./segments.ts"

// Broadcast: one email broadcast to every contact of an account of its own (100,000 by default, filled by SQL as the
// segments phase fills its account, every contact with an email), category utility so consent thins nobody. Measured:
// the snapshot (recipients per second, from the broadcast's started_at to the moment its phase leaves snapshotting)
// and dispatch end to end (emails per second caught by the SMTP sink, first to last), with the sink's duplicates.
// At tens of emails a second 100,000 would take most of an hour: dispatch is measured over a window from the first mail
// (BENCH_BROADCAST_DISPATCH_S), then the broadcast is cancelled (the rest skipped) unless it was sent by then.

/** Every contact the fill wrote (its source is `bench`). */
const EVERYONE = { version: 1, match: { field: "contact.source", op: "eq", value: "bench" } }
const POLL_MS = 50

interface Observer {
  readonly stop: () => Promise<PhaseObservation>
}

export const broadcastPhase = async (o: {
  readonly sql: postgres.Sql
  readonly agent: Agent
  readonly port: number
  readonly tenant: { readonly tenant_id: string; readonly live_key: string }
  readonly hotelIds: ReadonlyArray<string>
  readonly sink: SmtpSink
  readonly contacts: number
  /** CPU and probes of the platform from now until `stop` (test/bench/probes.ts). */
  readonly observe: () => Observer
  /** How long dispatch is measured from the first mail caught, at most. */
  readonly dispatchWindowMs: number
  /** A CPU profile of the worker over the dispatch window, saved to `file` (absent: not profiled). */
  readonly profileWorker?: { readonly start: () => Promise<{ readonly stop: () => Promise<CpuProfile> }>; readonly file: string }
}) => {
  const t0 = performance.now()
  await fillContacts(o.sql, o.tenant.tenant_id, o.hotelIds, o.contacts, { everyEmailed: true })
  await o.sql`INSERT INTO channel_email (tenant_id, sandbox, from_address, from_name, send_rate_per_minute)
    VALUES (${o.tenant.tenant_id}, false, 'bench@hotelexample.com', 'Bench Hotel', 100000000) ON CONFLICT DO NOTHING`
  const fillS = round((performance.now() - t0) / 1000)
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await exchange(o.agent, o.port, {
      method, path, headers: { authorization: `Bearer ${o.tenant.live_key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`)
    return (JSON.parse(res.body) as { data: Record<string, any> }).data
  }
  const created = await call("POST", "/api/v1/broadcasts", {
    name: "Bench broadcast", channel: "email", category: "utility", audience: { definition: EVERYONE },
    content: { subject: "Your stay at {{hotel_name}}", text: "Hello {{contact_first_name}}, see you soon." }
  })
  const id = created.broadcast_id as string

  // The sink keeps every mail it parsed; drained each poll (one synchronous step, so none is lost between the copy and
  // the clear) into counts by Message-ID, with when the first and the last arrived.
  const seen = new Map<string, number>()
  let firstMailAt: number | undefined
  let lastMailAt: number | undefined
  const drain = () => {
    const mails = o.sink.mails.slice()
    o.sink.clear()
    if (mails.length === 0) return
    const now = Date.now()
    firstMailAt ??= now
    lastMailAt = now
    for (const m of mails) seen.set(m.messageId, (seen.get(m.messageId) ?? 0) + 1)
  }
  drain()
  seen.clear()
  firstMailAt = lastMailAt = undefined

  const readRow = async () => (await o.sql<Array<{ status: string; phase: string | null; started_at: Date | null; targeted: number | null }>>`
    SELECT status, phase, started_at, targeted FROM broadcasts WHERE id = ${id}`)[0]!
  let observer = o.observe()
  const sendAt = Date.now()
  await call("POST", `/api/v1/broadcasts/${id}/send`)
  let row = await readRow()
  while (row.phase === "snapshotting" || row.status === "draft") {
    await new Promise((r) => setTimeout(r, POLL_MS))
    drain()
    row = await readRow()
  }
  const snapshotEndAt = Date.now()
  const snapshotObserved = await observer.stop()
  observer = o.observe()
  const profiling = await o.profileWorker?.start()
  // No mail within five minutes of the snapshot's end is a failure the figures show (no first mail, no rate).
  const noMailBy = Date.now() + 300_000
  const windowOver = () => (firstMailAt === undefined ? Date.now() > noMailBy : Date.now() - firstMailAt >= o.dispatchWindowMs)
  while (row.status === "sending" && !windowOver()) {
    await new Promise((r) => setTimeout(r, POLL_MS))
    drain()
    row = await readRow()
  }
  const completed = row.status === "sent"
  // Sent means every message recorded sent: the last mails may still be in the sink's parser.
  if (completed) await new Promise((r) => setTimeout(r, 1_000))
  drain()
  const dispatchObserved = await observer.stop()
  const workerProfile: ProfileSummary | null = profiling === undefined ? null : summarise(await profiling.stop(), o.profileWorker!.file, 15)
  const windowMails = seen.size
  const windowS = firstMailAt !== undefined && lastMailAt !== undefined ? (lastMailAt - firstMailAt) / 1000 : null
  if (!completed) {
    // A dispatch step may hold the broadcast's actor past the ingress's reply timeout: retried as the 503 says.
    for (let i = 0; ; i++) {
      const done = await call("POST", `/api/v1/broadcasts/${id}/cancel`).then(() => true, (e: unknown) => (i < 30 && String(e).includes(": 503 ") ? false : Promise.reject(e)))
      if (done) break
      await new Promise((r) => setTimeout(r, 2_000))
    }
    // Mails already claimed still leave; caught here for the duplicate count, not the rate.
    await new Promise((r) => setTimeout(r, 5_000))
    drain()
  }
  const counts = (await call("GET", `/api/v1/broadcasts/${id}`)).counts as Record<string, unknown>
  const snapshotS = (snapshotEndAt - (row.started_at?.getTime() ?? sendAt)) / 1000
  const mails = [...seen.values()].reduce((a, b) => a + b, 0)
  return {
    contacts: o.contacts,
    fill_s: fillS,
    status: row.status,
    completed,
    dispatch_window_s: o.dispatchWindowMs / 1000,
    targeted: row.targeted,
    snapshot_s: round(snapshotS),
    snapshot_per_s: row.targeted === null ? null : round(row.targeted / snapshotS, 1),
    mails_caught: mails,
    distinct_message_ids: seen.size,
    duplicates: [...seen.values()].filter((n) => n > 1).length,
    window_mails: windowMails,
    first_to_last_mail_s: windowS === null ? null : round(windowS),
    send_to_first_mail_s: firstMailAt === undefined ? null : round((firstMailAt - sendAt) / 1000),
    emails_per_s: windowS === null || windowS === 0 ? null : round(windowMails / windowS, 1),
    counts,
    cpu_cores: { snapshot: snapshotObserved.cpu_cores, dispatch: dispatchObserved.cpu_cores },
    sched: { snapshot: snapshotObserved.sched, dispatch: dispatchObserved.sched },
    pg: { snapshot: snapshotObserved.pg, dispatch: dispatchObserved.pg },
    probe_pg_commit_ms: { snapshot: snapshotObserved.probe_pg_commit_ms, dispatch: dispatchObserved.probe_pg_commit_ms },
    /** Where the worker's time went while dispatching (from the snapshot's end to the window's). */
    dispatch_worker_profile: workerProfile
  }
}
