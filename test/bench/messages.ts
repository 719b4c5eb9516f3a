import type { Agent } from "node:http"
import type postgres from "postgres"
import type { SmtpSink } from "../support/smtpSink.ts"
import { closedLoop, createContacts, round, type LoadResult, type Target } from "./load.ts"
import type { PhaseObservation } from "./probes.ts"
import { type CpuProfile, type ProfileSummary, summarise } from "./profiler.ts"

/**
 * Sends per second through the email path: POST /api/v1/messages (utility, so no consent gate skips it) → message
 * actor → outbox → deliverer → SMTP (nodemailer pool) → the local SMTP sink. Reported: the API's accept rate, the
 * end-to-end rate (first request to last mail caught) and the queue-to-sent latency of each message.
 */
export const messagesPhase = async (o: {
  readonly sql: postgres.Sql
  readonly agent: Agent
  readonly target: Target
  readonly tenantId: string
  readonly sink: SmtpSink
  readonly total: number
  readonly concurrency: number
  readonly runId: string
  /** CPU and probes of the platform from now until `stop` (test/bench/probes.ts): the sends, first request to last mail. */
  readonly observe: () => { readonly stop: () => Promise<PhaseObservation> }
  /**
   * A CPU profile of the worker over the sends, saved to `file` (absent: not profiled). Off in a record: sampling
   * slows the worker, and this phase's figure is a target.
   */
  readonly profileWorker?: { readonly start: () => Promise<{ readonly stop: () => Promise<CpuProfile> }>; readonly file: string }
}) => {
  await o.sql`INSERT INTO channel_email (tenant_id, sandbox, from_address, from_name, send_rate_per_minute)
    VALUES (${o.tenantId}, false, 'bench@hotelexample.com', 'Bench Hotel', 100000000) ON CONFLICT DO NOTHING`
  const contactIds = await createContacts(o.agent, o.target, o.total, { phonePrefix: "+3469", label: "Mail", runId: o.runId })
  o.sink.clear()
  let next = 0
  const observer = o.observe()
  const profiling = await o.profileWorker?.start()
  const started = Date.now()
  const load: LoadResult = await closedLoop({
    agent: o.agent, target: o.target, concurrency: o.concurrency,
    next: () => next >= contactIds.length ? undefined : {
      path: "/api/v1/messages",
      body: JSON.stringify({ contact_id: contactIds[next++], channel: "email", category: "utility", subject: "Your stay", text: "See you soon." }),
      items: 1
    }
  })
  const accepted = load.statuses["202"] ?? 0
  const caught = await o.sink.waitFor(accepted, 300_000).then((m) => m.length, () => o.sink.mails.length)
  const elapsedS = (Date.now() - started) / 1000
  const observed = await observer.stop()
  const workerProfile: ProfileSummary | null =
    profiling === undefined ? null : summarise(await profiling.stop(), o.profileWorker!.file, 25)
  const [latency] = await o.sql`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)) * 1000 AS p50,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)) * 1000 AS p99,
           count(*) FILTER (WHERE status = 'sent')::int AS sent
    FROM messages WHERE tenant_id = ${o.tenantId}`
  const duplicates = [...o.sink.countByMessageId().values()].filter((n) => n > 1).length
  return {
    sends: contactIds.length,
    accepted,
    // Every answer by status: a send not answered 202 is counted here, not lost from sight.
    statuses: load.statuses,
    api_accept_per_s: load.requests_per_s,
    api_latency_ms: load.latency_ms,
    mails_caught: caught,
    duplicates,
    end_to_end_per_s: round(caught / elapsedS),
    queue_to_sent_ms: { p50: round(Number(latency!.p50)), p99: round(Number(latency!.p99)) },
    sent_in_db: latency!.sent as number,
    cpu_cores: observed.cpu_cores,
    sched: observed.sched,
    pg: observed.pg,
    ...(workerProfile === null ? {} : { worker_profile: workerProfile })
  }
}
