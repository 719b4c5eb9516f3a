/**
 * `npm run bench` — the platform's benchmark on this machine (issue 6, item 6).
 *
 *   npm run bench                      full run: 1,000,000 reservations in the memory part (many minutes)
 *   npm run bench -- --quick           small sizes for development (BENCH_QUICK=1 does the same)
 *
 * Environment (all optional): BENCH_TOTAL (reservations of the memory part), BENCH_CONTACTS (person pool, default
 * BENCH_TOTAL / 5), BENCH_PHASE_S (seconds per throughput / rate phase), BENCH_RAW_S, BENCH_RATES (e.g.
 * "500,1000,2000"), BENCH_SINGLE_CONCURRENCY, BENCH_BATCH_CONCURRENCY, BENCH_PROFILE=0 (no CPU profiles),
 * BENCH_ONLY=raw,single,batch,rates,overload,profile,long,reads,explain,messages,journeys,loyalty,website,newsletter,sso,cdp,segments,broadcast,privacy,overview,console (a subset of phases),
 * BENCH_SEGMENT_CONTACTS (contacts of the segments phase's account, default 100,000), BENCH_BROADCAST_CONTACTS (contacts of
 * the broadcast phase's account, all mailed, default 100,000), BENCH_BROADCAST_DISPATCH_S (its dispatch measured this long, 120),
 * BENCH_OVERVIEW_RESERVATIONS (the overview and console phases' account, default 1,000,000; filled by SQL in about 9 minutes),
 * BENCH_PRIVACY_CONTACTS (guests of the privacy phase's account, default 100,000), BENCH_PRIVACY_SUPPRESSIONS (suppress requests timed, 20),
 * BENCH_OVERLOAD_COLD=1 (the overload phase's clients open their connections during the flood), BENCH_JOURNEYS (runs of the journeys phase, default 5,000), BENCH_MESSAGES (email sends of the messages phase, default
 * 5,000), BENCH_PROFILE_MESSAGES=1 (a CPU profile of the worker over the messages phase's sends: slows them, so off in a record), BENCH_LOYALTY_MEMBERS (default 10,000), BENCH_LOYALTY_OPS (earns and redemptions of the loyalty phase, default
 * 20,000), BENCH_INBOX_RETENTION_MS (the platform's inbox retention window, default 60 s: the memory part waits it out
 * and reports what stays), NATS_URL, DATABASE_URL.
 *
 * Writes test/bench/results/latest.json and latest.md, plus copies named by the run's timestamp. Creates its own
 * database (gep_bench_<run>) and namespace (bench<run>), and removes both, and every process it started, at the end.
 */
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream"
import { connect, nanos } from "@nats-io/transport-node"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, loadavg, totalmem } from "node:os"
import { fileURLToPath } from "node:url"
import postgres from "postgres"
import { closedLoop, makeAgent, openLoop, round, type Job, type LoadResult, type Target } from "./load.ts"
import { ReservationStream, reservationBody, type PayloadOptions } from "./payloads.ts"
import { cleanup, gep, killAllNow, makeEnv, ROOT, serve, stopAll, type ServedProcess } from "./platform.ts"
import { CpuMeter, memoryOf, observe, scrapeAdmission, waitDrained, type ObserverDeps, type PhaseObservation } from "./probes.ts"
import { inspectMemory, startProfile, summarise, type ProfileSummary } from "./profiler.ts"
import { actorTransactions, commandsFor, encodeEnvelopes, rawJetStream, rawPostgres } from "./raw.ts"
import { explainStatements } from "./explain.ts"
import { journeysPhase } from "./journeys.ts"
import { websiteEventsPhase } from "./websiteEvents.ts"
import { cdpPhase } from "./cdp.ts"
import { segmentsPhase } from "./segments.ts"
import { broadcastPhase } from "./broadcast.ts"
import { privacyPhase } from "./privacy.ts"
import { overviewPhase } from "./overview.ts"
import { fillOverview } from "./overviewFill.ts"
import { consolePhase } from "./console.ts"
import { ssoPhase } from "./sso.ts"
import { newsletterPhase } from "./newsletter.ts"
import { contactReadsPhase } from "./contactReads.ts"
import { messagesPhase } from "./messages.ts"
import { loyaltyPhase } from "./loyalty.ts"
import { overloadPhase, type OverloadResult } from "./overload.ts"
import { startSmtpSink, type SmtpSink } from "../support/smtpSink.ts"
import { costModel, renderMarkdown, TARGETS } from "./report.ts"
import { storageAfterRetention, storageOf, tableWrites, writesPerReservation } from "./storage.ts"
import { startAutovacuumStandIn } from "./autovacuum.ts"

const RESULTS = fileURLToPath(new URL("./results/", import.meta.url))
const quick = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1"
const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback)

const settings = {
  quick,
  total: num("BENCH_TOTAL", quick ? 1_000 : 1_000_000),
  contacts: 0,
  phase_s: num("BENCH_PHASE_S", quick ? 2 : 30),
  raw_s: num("BENCH_RAW_S", quick ? 1 : 10),
  warmup_s: quick ? 2 : 10,
  /** Open loop: how long to wait for answers after the last scheduled request (the platform answers 503 after 10 s). */
  drain_s: num("BENCH_DRAIN_S", quick ? 3 : 15),
  profile_s: quick ? 2 : 15,
  rates: (process.env.BENCH_RATES ?? "500,1000,2000").split(",").map(Number),
  single_concurrency: num("BENCH_SINGLE_CONCURRENCY", 128),
  batch_concurrency: num("BENCH_BATCH_CONCURRENCY", 8),
  batch_size: 50,
  update_share: 0.1,
  partitions: 16,
  /** The platform's GEP_INBOX_RETENTION_MS here (default 15 min): the memory part waits it out before measuring what stays. */
  inbox_retention_ms: num("BENCH_INBOX_RETENTION_MS", 60_000),
  profile: process.env.BENCH_PROFILE !== "0",
  only: process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",")) : undefined
}
// 1,000,000 reservations over 200,000 people by default; smaller runs keep a pool of at least 20,000 (a tiny pool
// would measure row-lock contention on a handful of contacts, not the platform).
settings.contacts = num("BENCH_CONTACTS", Math.max(20_000, Math.round(settings.total / 5)))
const want = (phase: string) => settings.only === undefined || settings.only.has(phase)

const runId = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`
const env = makeEnv(runId)
const startedAt = new Date()
const say = (msg: string, fields: Record<string, unknown> = {}) =>
  console.log(`[bench ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(5)}s] ${msg}${Object.keys(fields).length ? " " + JSON.stringify(fields) : ""}`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let cleaned: Promise<unknown> | undefined
const cleanupOnce = () => {
  cleaned ??= (async () => {
    say("cleaning up: stopping processes")
    await stopAll().catch(() => killAllNow())
    say("cleaning up: streams and database")
    const removed = await cleanup(env).catch((e: unknown) => ({ error: String(e) }))
    say("cleaned up", removed as Record<string, unknown>)
  })()
  return cleaned
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  // `on`, not `once`: a repeated signal must not kill the bench before it removed what it created.
  process.on(signal, () => {
    if (cleaned !== undefined) return
    say(`${signal}: stopping`)
    void cleanupOnce().finally(() => process.exit(130))
  })
}
process.once("exit", () => killAllNow())
process.on("unhandledRejection", (e) => {
  console.error("unhandled rejection", e)
  void cleanupOnce().finally(() => process.exit(1))
})

const gitCommit = () => {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT }).toString().trim()
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no", "--", "src", "core", "actors", "streams", "schemas", "infra"], { cwd: ROOT }).toString().trim() !== ""
    return { commit, dirty_platform_sources: dirty }
  } catch {
    return { commit: "unknown", dirty_platform_sources: false }
  }
}

const main = async () => {
  mkdirSync(RESULTS, { recursive: true })
  mkdirSync(`${RESULTS}profiles`, { recursive: true })
  say("run", { runId, database: env.databaseName, namespace: env.namespace, settings: { ...settings, only: settings.only ? [...settings.only] : undefined } })

  // ---- setup: database, tenant, hotels (through the CLI), probe stream -------------------------------------------
  await gep(env, ["migrate"])
  const tenant = await gep(env, ["tenant", "create", "--name", `Bench ${runId}`]) as { tenant_id: string; live_key: string }
  const hotelCodes = ["BCH-MAD", "BCH-BCN", "BCH-LON", "BCH-PAR"]
  const hotels = await Promise.all(hotelCodes.map((code, i) =>
    gep(env, ["hotel", "create", "--tenant", tenant.tenant_id, "--code", code, "--name", `Bench Hotel ${i + 1}`, "--timezone", "Europe/Madrid"])
  )) as Array<{ hotel_id: string }>
  const hotelIds = hotels.map((h) => h.hotel_id)
  const nc = await connect({ servers: env.natsUrl.split(","), name: "gep-bench" })
  const js = jetstream(nc, { timeout: 10_000 })
  const jsm = await jetstreamManager(nc)
  const probeSubject = `${env.namespace}.probe`
  await jsm.streams.add({
    name: `${env.namespace}_PROBE`, subjects: [probeSubject], storage: StorageType.File, retention: RetentionPolicy.Limits,
    max_msgs: 10_000, max_age: nanos(3600 * 1000), duplicate_window: nanos(60_000)
  })
  const sql = postgres(env.databaseUrl, { max: 4, onnotice: () => {} })
  // What production's autovacuum does for the planner's statistics, on a machine configured without it (autovacuum.ts).
  const autovacuum = startAutovacuumStandIn(env.databaseUrl)
  await sql`CREATE TABLE IF NOT EXISTS bench_probe (id bigserial PRIMARY KEY, at timestamptz NOT NULL)`
  const [{ version: pgVersion }] = await sql`SELECT current_setting('server_version') AS version` as unknown as [{ version: string }]
  const pgSettings = Object.fromEntries((await sql`
    SELECT name, setting FROM pg_settings
    WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'max_connections', 'commit_delay', 'wal_level', 'autovacuum')`)
    .map((r) => [r.name as string, r.setting as string]))
  const machine = {
    cores: cpus().length,
    cpu_model: cpus()[0]?.model ?? "unknown",
    memory_gb: round(totalmem() / 2 ** 30, 1),
    loadavg_at_start: loadavg().map((x) => round(x)),
    node: process.version,
    nats_server: nc.info?.version ?? "unknown",
    postgres: pgVersion,
    postgres_settings: pgSettings,
    ...gitCommit()
  }
  say("machine", machine)

  const payloads: PayloadOptions = { contacts: settings.contacts, hotelCodes, idPrefix: `BR${runId}`, updateShare: settings.update_share }

  // ---- (a) raw limits ----------------------------------------------------------------------------------------
  let raw: Record<string, unknown> = {}
  let rawJs: Awaited<ReturnType<typeof rawJetStream>> | undefined
  let rawPg: Awaited<ReturnType<typeof rawPostgres>> | undefined
  let actorTxn: Awaited<ReturnType<typeof actorTransactions>> | undefined
  // CPU of the machine while a raw limit is measured: the limits are only as good as the cores they got.
  const rawMeter = new CpuMeter({ database: env.databaseName })
  const rawCpu: Record<string, Record<string, number>> = {}
  const withCpu = async <A>(name: string, f: () => Promise<A>): Promise<A> => {
    const tracking = rawMeter.begin()
    const out = await f()
    rawCpu[name] = tracking.end().cores
    return out
  }
  if (want("raw")) {
    const rawPayloads: PayloadOptions = { ...payloads, idPrefix: `RAW${runId}` }
    const commands = commandsFor(rawPayloads, 2_000, hotelIds, 7)
    const envelopes = encodeEnvelopes(tenant.tenant_id, commands, env.namespace)
    say("raw: JetStream publish")
    rawJs = await withCpu("jetstream", () => rawJetStream(nc, js, jsm, env.namespace, envelopes, settings.raw_s * 1000, 256))
    say("raw: JetStream", { publish_per_s: rawJs.publish.ops_per_s, envelope_bytes: rawJs.envelope_bytes_mean, consume_ack_per_s: rawJs.consume_ack_per_s })
    await sleep(1_000)
    rawPg = await withCpu("postgres", () => rawPostgres(env.databaseUrl, tenant.tenant_id, commands, settings.raw_s * 1000, { inFlight: 64, pool: 20 }))
    say("raw: PostgreSQL", { upsert_per_s: rawPg.single_row.ops_per_s, batch_500_rows_per_s: rawPg.batch_500.units_per_s })
    await sleep(1_000)
    const txnCommands = commandsFor({ ...payloads, idPrefix: `TXN${runId}` }, 4_000, hotelIds, 11)
    actorTxn = await withCpu("actor_transaction", () =>
      actorTransactions(env.databaseUrl, tenant.tenant_id, txnCommands, env.namespace, settings.raw_s * 1000, { inFlight: 64, pool: 20 }))
    say("raw: actor transaction", { txn_per_s: actorTxn.txn.ops_per_s, statements_per_txn: actorTxn.statements_per_txn })
    raw = { jetstream: rawJs, postgres: rawPg, actor_transaction: actorTxn, cpu_cores_during: rawCpu }
  }

  // ---- platform: worker + ingress as separate processes ---------------------------------------------------------
  // Email leaves to a local SMTP sink (smtp-server + mailparser, in this process) for the messages and broadcast phases.
  const sink: SmtpSink | undefined = want("messages") || want("newsletter") || want("broadcast") ? await startSmtpSink() : undefined
  const platformEnv = {
    GEP_RATE_LIMIT_PER_MINUTE: "1000000000", GEP_PARTITIONS: String(settings.partitions),
    // Every sign-in of the sso phase comes from one address: the per-IP limit would measure itself.
    GEP_SSO_CODES_PER_IP_PER_MINUTE: "1000000000", GEP_SSO_CODES_PER_EMAIL_PER_MINUTE: "1000000000",
    GEP_SSO_MEMBER_REQUESTS_PER_MINUTE: "1000000000",
    GEP_INBOX_RETENTION_MS: String(settings.inbox_retention_ms),
    ...(sink ? { GEP_SMTP_URL: sink.url, GEP_SEND_RATE_PER_MINUTE: "100000000" } : {})
  }
  const needPlatform = ["single", "batch", "rates", "overload", "profile", "long", "messages", "journeys", "loyalty", "website", "newsletter", "sso", "cdp", "segments", "broadcast", "privacy"].some(want)
  let messages: Awaited<ReturnType<typeof messagesPhase>> | undefined
  let journeys: Awaited<ReturnType<typeof journeysPhase>> | undefined
  let loyalty: Awaited<ReturnType<typeof loyaltyPhase>> | undefined
  let website: Awaited<ReturnType<typeof websiteEventsPhase>> | undefined
  let cdp: Awaited<ReturnType<typeof cdpPhase>> | undefined
  let segments: Awaited<ReturnType<typeof segmentsPhase>> | undefined
  let broadcast: Awaited<ReturnType<typeof broadcastPhase>> | undefined
  let privacy: Awaited<ReturnType<typeof privacyPhase>> | undefined
  let sso: Awaited<ReturnType<typeof ssoPhase>> | undefined
  let newsletter: Awaited<ReturnType<typeof newsletterPhase>> | undefined
  let reads: Awaited<ReturnType<typeof contactReadsPhase>> | undefined
  let worker: ServedProcess | undefined
  let ingress: ServedProcess | undefined
  const phases: Record<string, { load: LoadResult; observed: PhaseObservation }> = {}
  const profiles: Record<string, { ingress?: ProfileSummary; worker?: ProfileSummary; load?: LoadResult; observed?: PhaseObservation }> = {}
  let startRss = { worker: 0, ingress: 0 }
  let sustainableRate: number | undefined
  let long: Record<string, unknown> | undefined
  let afterLong: { load: LoadResult; observed: PhaseObservation } | undefined
  let explain: Awaited<ReturnType<typeof explainStatements>> | undefined
  let overload: OverloadResult | undefined
  let overloadObserved: PhaseObservation | undefined
  let overloadAdmission: { at_start?: Record<string, number>; at_end?: Record<string, number> } | undefined
  let writes: ReturnType<typeof writesPerReservation> | undefined

  if (needPlatform) {
    worker = await serve(env, "worker", platformEnv, { inspect: settings.profile })
    ingress = await serve(env, "ingress", platformEnv, { inspect: settings.profile })
    startRss = { worker: memoryOf(worker.pid).rss_mb, ingress: memoryOf(ingress.pid).rss_mb }
    say("platform up", { worker_pid: worker.pid, ingress_pid: ingress.pid, base_url: ingress.baseUrl, rss_mb: startRss })
    const target: Target = { host: "127.0.0.1", port: ingress.port, key: tenant.live_key }
    const stream = new ReservationStream(payloads, { seed: 1 })
    const singleJob = (): Job => ({ path: "/api/v1/reservations", body: JSON.stringify(stream.next()), items: 1 })
    const batchJob = (): Job => ({
      path: "/api/v1/reservations/batch",
      body: JSON.stringify({ reservations: Array.from({ length: settings.batch_size }, () => stream.next()) }),
      items: settings.batch_size
    })
    const meter = new CpuMeter({ ingress: ingress.pid, worker: worker.pid, database: env.databaseName })
    const deps: ObserverDeps = {
      meter, jsm, js, sql, namespace: env.namespace, partitions: settings.partitions, workerPid: worker.pid,
      ingressPid: ingress.pid, ingressUrl: ingress.baseUrl, probeSubject, databaseName: env.databaseName
    }
    // Every measurement starts with nothing queued in front of the worker (an overloaded phase leaves a backlog).
    const drainCapMs = quick ? 30_000 : 900_000
    const measured = async (run: () => Promise<LoadResult>) => {
      const drained = await waitDrained(jsm, env.namespace, settings.partitions, drainCapMs)
      if (drained > 1) say("waited for the backlog to drain", { seconds: drained })
      const obs = observe(deps)
      const load = await run()
      return { load, observed: await obs.stop() }
    }
    const tell = (name: string, p: { load: LoadResult; observed: PhaseObservation }) =>
      say(name, {
        reservations_per_s: p.load.reservations_per_s, requests_per_s: p.load.requests_per_s, p50: p.load.latency_ms.p50,
        p99: p.load.latency_ms.p99, failed: p.load.failed, statuses: p.load.statuses, cpu: p.observed.cpu_cores, sched: p.observed.sched
      })
    const singleAgent = makeAgent(Math.max(settings.single_concurrency, 256))
    const batchAgent = makeAgent(Math.max(settings.batch_concurrency, 16))
    const single = (durationMs: number) => () =>
      closedLoop({ agent: singleAgent, target, concurrency: settings.single_concurrency, next: singleJob, durationMs })
    const batch = (durationMs: number) => () =>
      closedLoop({ agent: batchAgent, target, concurrency: settings.batch_concurrency, next: batchJob, durationMs })

    // Warm-up (JIT, pools, hotel and key caches): not measured.
    await closedLoop({ agent: singleAgent, target, concurrency: 32, next: singleJob, durationMs: settings.warmup_s * 1000 })
    await closedLoop({ agent: batchAgent, target, concurrency: 2, next: batchJob, durationMs: (settings.warmup_s * 1000) / 2 })
    say("warm-up done")

    // ---- (b) sustained throughput, closed loop --------------------------------------------------------------------
    if (want("single")) {
      await waitDrained(jsm, env.namespace, settings.partitions, drainCapMs)
      const before = await tableWrites(sql)
      tell("single", phases.single = await measured(single(settings.phase_s * 1000)))
      // Everything the phase sent applied, and every backend's statistics flushed (an idle one flushes within 10 s).
      await waitDrained(jsm, env.namespace, settings.partitions, drainCapMs)
      await sleep(11_000)
      writes = writesPerReservation(before, await tableWrites(sql), phases.single.load.reservations_ok)
      say("single: rows written", writes)
    }
    if (want("batch")) {
      tell("batch", phases.batch = await measured(batch(settings.phase_s * 1000)))
      await sleep(2_000)
    }

    // ---- (c, part 1) latency at a rate the platform sustains (half its single-endpoint throughput) ---------------
    // The rates (run after the memory part, below) may exceed what this machine sustains; this one shows the
    // latency of the platform when it is not overloaded.
    const openLoopPhase = async (name: string, rate: number) => {
      const openAgent = makeAgent(512) // fresh per rate: nothing left over from an overloaded rate delays the next
      tell(name, phases[name] = await measured(() =>
        openLoop({ agent: openAgent, target, ratePerS: rate, durationMs: settings.phase_s * 1000, drainMs: settings.drain_s * 1000, next: singleJob })))
      openAgent.destroy()
      await sleep(2_000)
    }
    if (want("rates") && phases.single) {
      sustainableRate = Math.max(10, Math.round((phases.single.load.reservations_per_s * 0.5) / 10) * 10)
      await openLoopPhase("rate_sustainable", sustainableRate)
    }

    // ---- overload: 3x the single-endpoint throughput, open loop; the excess must be shed, not queued ------------
    if (want("overload") && phases.single) {
      await waitDrained(jsm, env.namespace, settings.partitions, drainCapMs)
      const overloadAgent = makeAgent(1024)
      // The limit the flood meets is what the phases before it left: the report shows it, and what the flood left.
      const admissionAtStart = await scrapeAdmission(ingress.baseUrl)
      const obs = observe(deps)
      overload = await overloadPhase({
        agent: overloadAgent, target, sql, tenantId: tenant.tenant_id, payloads, sustainedPerS: phases.single.load.reservations_per_s,
        multiple: 3, durationMs: settings.phase_s * 1000, drainMs: settings.drain_s * 1000,
        warmConnections: process.env.BENCH_OVERLOAD_COLD === "1" ? 0 : 1024,
        drained: () => waitDrained(jsm, env.namespace, settings.partitions, drainCapMs)
      })
      overloadObserved = await obs.stop()
      overloadAdmission = { at_start: admissionAtStart, at_end: await scrapeAdmission(ingress.baseUrl) }
      overloadAgent.destroy()
      say("overload", {
        offered_per_s: overload.offered_per_s, within_2s: overload.answered_within_2s_share, accepted_per_s: overload.accepted.per_s,
        accepted_p99: overload.accepted.latency_ms.p99, shed: overload.shed.count, shed_p99: overload.shed.latency_ms.p99,
        lost: overload.acknowledged_lost, unavailable_but_stored: overload.unavailable_but_stored, statuses: overload.load.statuses,
        lag_ms: overload.load.max_schedule_lag_ms, cpu: overloadObserved.cpu_cores, admission: overloadAdmission
      })
      await sleep(2_000)
    }

    // ---- (d) memory after BENCH_TOTAL reservations through the batch endpoint ----------------------------------
    if (want("long")) {
      const new0 = stream.newCount, upd0 = stream.updateCount
      let sent = 0
      const rssSeries: Array<{ t_s: number; ok: number; worker_rss_mb: number; ingress_rss_mb: number }> = []
      const t0 = Date.now()
      const longJob = (): Job | undefined => {
        if (sent >= settings.total) return undefined
        const n = Math.min(settings.batch_size, settings.total - sent)
        sent += n
        return { path: "/api/v1/reservations/batch", body: JSON.stringify({ reservations: Array.from({ length: n }, () => stream.next()) }), items: n }
      }
      let lastLog = 0
      const wBefore = memoryOf(worker.pid)
      const p = await measured(() => closedLoop({
        agent: batchAgent, target, concurrency: settings.batch_concurrency, next: longJob,
        onProgress: (ok, ms) => {
          const w = memoryOf(worker!.pid).rss_mb
          if (rssSeries.length === 0 || ms - rssSeries[rssSeries.length - 1]!.t_s * 1000 >= 5_000) {
            rssSeries.push({ t_s: round(ms / 1000, 0), ok, worker_rss_mb: w, ingress_rss_mb: memoryOf(ingress!.pid).rss_mb })
          }
          if (ms - lastLog >= 30_000) {
            lastLog = ms
            say("long: progress", { ok, of: settings.total, per_s: round(ok / (ms / 1000)), worker_rss_mb: w })
          }
        }
      }))
      const atEnd = memoryOf(worker.pid)
      const ingressAtEnd = memoryOf(ingress.pid)
      await sleep(10_000)
      const settled = memoryOf(worker.pid)
      // What the RSS is made of: V8 heap in use vs kept, before and after a full GC (through the inspector).
      const heap = worker.inspectorUrl
        ? {
          before_gc: await inspectMemory(worker.inspectorUrl, false).catch(() => undefined),
          after_gc: await inspectMemory(worker.inspectorUrl, true).catch(() => undefined)
        }
        : undefined
      await sleep(2_000)
      const afterGc = memoryOf(worker.pid)
      const [counts] = await sql`
        SELECT (SELECT count(*) FROM reservations WHERE tenant_id = ${tenant.tenant_id} AND NOT sandbox)::int AS reservations,
               (SELECT count(*) FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND NOT sandbox)::int AS contacts,
               (SELECT count(*) FROM reservation_guests WHERE tenant_id = ${tenant.tenant_id} AND NOT sandbox)::int AS reservation_guests,
               (SELECT count(*) FROM outbox WHERE published_at IS NULL)::int AS outbox_unpublished,
               (SELECT count(*) FROM dead_letters)::int AS dead_letters,
               (SELECT count(*) FROM identity_conflicts)::int AS identity_conflicts,
               pg_database_size(current_database())::float8 / 1048576 AS database_mb`
      const storageAtEnd = await storageOf(sql, jsm, env.namespace)
      say("long: storage at the end", storageAtEnd)
      const storageAfter = await storageAfterRetention(sql, jsm, env.namespace, settings.inbox_retention_ms)
      say("long: storage after the retention window", storageAfter)
      long = {
        storage_at_end: storageAtEnd,
        storage_after_retention: storageAfter,
        reservations_sent: settings.total,
        new_reservations: stream.newCount - new0,
        updates: stream.updateCount - upd0,
        contacts_pool: settings.contacts,
        wall_s: round((Date.now() - t0) / 1000, 1),
        load: p.load,
        observed: p.observed,
        worker_rss_at_start_mb: startRss.worker,
        worker_rss_before_mb: wBefore.rss_mb,
        worker_rss_mb_at_end: atEnd.rss_mb,
        worker_rss_mb_after_10s_idle: settled.rss_mb,
        worker_rss_mb_after_full_gc: heap ? afterGc.rss_mb : null,
        worker_peak_rss_mb: afterGc.peak_rss_mb,
        worker_heap: heap,
        ingress_rss_mb_at_end: ingressAtEnd.rss_mb,
        ingress_peak_rss_mb: ingressAtEnd.peak_rss_mb,
        rss_series: rssSeries,
        db_counts: counts as unknown as Record<string, number>
      }
      say("long done", {
        per_s: p.load.reservations_per_s, failed: p.load.failed, worker_rss_mb: atEnd.rss_mb, peak: afterGc.peak_rss_mb, heap, db: counts
      })

      // The same single-endpoint load once the database holds the whole run.
      if (!quick && want("single")) {
        await sleep(2_000)
        afterLong = await measured(single((settings.phase_s * 1000) / 2))
        tell("single after long", afterLong)
      }
    }

    // ---- reads on the database part (d) filled: a contact's profile and its timeline (50 items), 200 requests/s each ----
    if (want("reads")) {
      reads = await contactReadsPhase({
        sql, agent: singleAgent, port: ingress.port, baseUrl: ingress.baseUrl, coreKey: tenant.live_key, tenantId: tenant.tenant_id,
        runId, durationS: quick ? 5 : settings.phase_s, rate: num("BENCH_READ_RATE", 200),
        watch: {
          pids: { ingress: ingress.pid, worker: worker.pid }, ingressUrl: ingress.baseUrl,
          observe: () => observe(deps),
          profiles: settings.profile && ingress.inspectorUrl
            ? { ingressInspectorUrl: ingress.inspectorUrl, file: (name) => `${RESULTS}profiles/${startedAt.toISOString().replace(/[:.]/g, "-")}-${name}.cpuprofile` }
            : undefined
        }
      }).catch((e: unknown) => {
        // A failed read phase is reported, and the phases after it still run.
        say("reads failed", { error: String(e) })
        return undefined
      })
      if (reads) say("reads", reads)
    }

    // ---- (e) sends per second through the email path ----------------------------------------------------------
    if (want("messages") && sink) {
      messages = await messagesPhase({
        sql, agent: singleAgent, target, tenantId: tenant.tenant_id, sink, runId,
        total: num("BENCH_MESSAGES", quick ? 500 : 5_000), concurrency: 64, observe: () => observe(deps),
        ...(process.env.BENCH_PROFILE_MESSAGES === "1" && worker.inspectorUrl ? {
          profileWorker: {
            start: () => startProfile(worker!.inspectorUrl!),
            file: `${RESULTS}profiles/${startedAt.toISOString().replace(/[:.]/g, "-")}-messages-worker.cpuprofile`
          }
        } : {})
      })
      say("messages", messages)
      if (!want("newsletter") && !want("broadcast")) await sink.close()
    }

    // ---- journey starts and timer wake-ups ----------------------------------------------------------------------
    if (want("journeys")) {
      journeys = await journeysPhase({
        sql, agent: singleAgent, target, tenantId: tenant.tenant_id, runId,
        total: num("BENCH_JOURNEYS", quick ? 500 : 5_000), concurrency: 64, steadyS: quick ? 10 : 30, meter
      })
      say("journeys", journeys)
    }

    // ---- (f) loyalty writes per second: earns and redemptions mixed over 10,000 members ----------------------------
    if (want("loyalty")) {
      loyalty = await loyaltyPhase({
        sql, agent: singleAgent, target, tenantId: tenant.tenant_id, runId,
        members: num("BENCH_LOYALTY_MEMBERS", 10_000), operations: num("BENCH_LOYALTY_OPS", quick ? 2_000 : 20_000), concurrency: 64, meter
      })
      say("loyalty", loyalty)
    }

    // ---- website events: server-key batches of 50 and single browser-key beacons ----------------------------------
    if (want("website")) {
      website = await websiteEventsPhase({
        sql, agent: singleAgent, port: ingress.port, baseUrl: ingress.baseUrl, coreKey: tenant.live_key, tenantId: tenant.tenant_id,
        runId, durationS: quick ? 10 : settings.phase_s
      })
      say("website", website)
    }

    // ---- CDP: visitor events (requests of 20) and one bulk job of post-checkout reservations ----------------------
    if (want("cdp")) {
      cdp = await cdpPhase({
        agent: singleAgent, port: ingress.port, coreKey: tenant.live_key, hotelCode: hotelCodes[0]!, runId,
        durationS: quick ? 10 : settings.phase_s, bulkSize: num("BENCH_CDP_BULK", 5_000)
      })
      say("cdp", cdp)
    }

    // ---- segments: previews of four definitions on an account of its own holding 100,000 contacts --------------------
    if (want("segments")) {
      const own = await gep(env, ["tenant", "create", "--name", `Bench segments ${runId}`]) as { tenant_id: string; live_key: string }
      const ownHotels = await Promise.all(["SEG-MAD", "SEG-LON"].map((code, i) =>
        gep(env, ["hotel", "create", "--tenant", own.tenant_id, "--code", code, "--name", `Segment Hotel ${i + 1}`, "--timezone", i === 0 ? "Europe/Madrid" : "Europe/London"])
      )) as Array<{ hotel_id: string }>
      segments = await segmentsPhase({
        sql, agent: singleAgent, port: ingress.port, tenant: own, hotelIds: ownHotels.map((h) => h.hotel_id),
        contacts: num("BENCH_SEGMENT_CONTACTS", quick ? 10_000 : 100_000), repeats: quick ? 3 : 5
      })
      say("segments", segments)
    }

    // ---- broadcast: one utility email broadcast to every contact of an account of its own (100,000), into the sink ----
    if (want("broadcast") && sink) {
      const own = await gep(env, ["tenant", "create", "--name", `Bench broadcast ${runId}`]) as { tenant_id: string; live_key: string }
      const ownHotel = await gep(env, ["hotel", "create", "--tenant", own.tenant_id, "--code", "BC-MAD", "--name", "Broadcast Hotel", "--timezone", "Europe/Madrid"]) as { hotel_id: string }
      await waitDrained(jsm, env.namespace, settings.partitions, drainCapMs)
      const workerInspector = settings.profile ? worker.inspectorUrl : undefined
      broadcast = await broadcastPhase({
        sql, agent: singleAgent, port: ingress.port, tenant: own, hotelIds: [ownHotel.hotel_id], sink,
        contacts: num("BENCH_BROADCAST_CONTACTS", quick ? 10_000 : 100_000), observe: () => observe(deps),
        dispatchWindowMs: num("BENCH_BROADCAST_DISPATCH_S", quick ? 20 : 120) * 1000,
        ...(workerInspector === undefined ? {} : {
          profileWorker: {
            start: () => startProfile(workerInspector),
            file: `${RESULTS}profiles/${startedAt.toISOString().replace(/[:.]/g, "-")}-broadcast-dispatch-worker.cpuprofile`
          }
        })
      })
      say("broadcast", broadcast)
      if (!want("newsletter")) await sink.close()
    }

    // ---- privacy: suppress, export and erase through the API on an account of its own (100,000 guests) ------------
    if (want("privacy")) {
      const own = await gep(env, ["tenant", "create", "--name", `Bench privacy ${runId}`]) as { tenant_id: string }
      const ownHotel = await gep(env, ["hotel", "create", "--tenant", own.tenant_id, "--code", "PV-MAD", "--name", "Privacy Hotel", "--timezone", "Europe/Madrid"]) as { hotel_id: string }
      // `*` does not grant privacy:write: an erasure is asked for on purpose.
      const ownKey = await gep(env, ["key", "create", "--tenant", own.tenant_id, "--scopes", "*,privacy:write"]) as { key: string }
      // The erasure's drains wait for every consumer: a backlog left by an earlier phase would be timed as the erasure.
      await waitDrained(jsm, env.namespace, settings.partitions, drainCapMs)
      privacy = await privacyPhase({
        sql, agent: singleAgent, port: ingress.port, tenantId: own.tenant_id, hotelId: ownHotel.hotel_id, key: ownKey.key,
        nats: { js, jsm }, namespace: env.namespace,
        contacts: num("BENCH_PRIVACY_CONTACTS", quick ? 10_000 : 100_000), suppressions: num("BENCH_PRIVACY_SUPPRESSIONS", 20)
      })
      say("privacy", privacy)
    }

    // ---- Loyalty SSO: complete sign-ins per second, then member reads with their access tokens ----------------------
    if (want("sso")) {
      sso = await ssoPhase({ sql, baseUrl: ingress.baseUrl, coreKey: tenant.live_key, runId, durationS: quick ? 5 : settings.phase_s })
      say("sso", sso)
    }

    // ---- newsletter sign-ups from browsers (publishable key, allowed Origin), each queuing a confirmation email ----
    if (want("newsletter")) {
      newsletter = await newsletterPhase({
        sql, agent: singleAgent, port: ingress.port, baseUrl: ingress.baseUrl, coreKey: tenant.live_key, tenantId: tenant.tenant_id,
        runId, durationS: quick ? 10 : settings.phase_s
      })
      say("newsletter", newsletter)
      await sink?.close()
    }

    // ---- CPU profiles of ingress and worker under max load (after the measurements: profiling slows a little) ---
    if (want("profile") && settings.profile && ingress.inspectorUrl && worker.inspectorUrl) {
      for (const [name, run] of [["single", single(settings.profile_s * 1000)], ["batch", batch(settings.profile_s * 1000)]] as const) {
        await sleep(2_000)
        const pi = await startProfile(ingress.inspectorUrl)
        const pw = await startProfile(worker.inspectorUrl)
        const p = await measured(run)
        const [ip, wp] = await Promise.all([pi.stop(), pw.stop()])
        const stamp = startedAt.toISOString().replace(/[:.]/g, "-")
        profiles[name] = {
          load: p.load,
          observed: p.observed,
          ingress: summarise(ip, `${RESULTS}profiles/${stamp}-${name}-ingress.cpuprofile`),
          worker: summarise(wp, `${RESULTS}profiles/${stamp}-${name}-worker.cpuprofile`)
        }
        say(`profile ${name}`, {
          reservations_per_s: p.load.reservations_per_s,
          ingress_top: profiles[name]!.ingress!.by_module.slice(0, 5),
          worker_top: profiles[name]!.worker!.by_module.slice(0, 5)
        })
      }
    }
    // ---- (c) latency at the fixed arrival rates, open loop (after the memory part: an overloaded rate leaves a
    // backlog of envelopes whose clients gave up, which each next phase first waits out) ----------------------------
    if (want("rates")) {
      for (const rate of settings.rates) await openLoopPhase(`rate_${rate}`, rate)
    }
    singleAgent.destroy()
    batchAgent.destroy()

    if (want("explain")) {
      explain = await explainStatements(sql, tenant.tenant_id, hotelIds[0]!, reservationBody(payloads, 5, 1)).catch((e: unknown) => ({ error: String(e) }) as never)
      say("explain done")
    }
  }

  // ---- overview statistics (issue 27): the route's read on an account of its own filled by SQL, no platform needed ----
  let overview: Awaited<ReturnType<typeof overviewPhase>> | undefined
  let consoleLoad: (Awaited<ReturnType<typeof consolePhase>> & { reservations: number; fill_s: number | null }) | undefined
  if (want("overview") || want("console")) {
    const own = await gep(env, ["tenant", "create", "--name", `Bench overview ${runId}`]) as { tenant_id: string }
    const ownHotels = await Promise.all(["OV-MAD", "OV-BCN", "OV-LON", "OV-PAR"].map((code, i) =>
      gep(env, ["hotel", "create", "--tenant", own.tenant_id, "--code", code, "--name", `Overview Hotel ${i + 1}`, "--timezone", "Europe/Madrid"])
    )) as Array<{ hotel_id: string }>
    const account = { tenantId: own.tenant_id, hotelIds: ownHotels.map((h) => h.hotel_id), reservations: num("BENCH_OVERVIEW_RESERVATIONS", quick ? 50_000 : 1_000_000) }
    let fill_s: number | null = null
    if (want("overview")) {
      overview = await overviewPhase(env.databaseUrl, { ...account, fill: true })
      say("overview", overview)
    } else {
      const fillStarted = Date.now()
      await fillOverview(sql, account)
      fill_s = round((Date.now() - fillStarted) / 1000, 1)
      say("console: account filled", { reservations: account.reservations, fill_s })
    }
    // ---- the console's screens (issue 27 item 8) in Chromium on that account, through an ingress of its own ----
    if (want("console")) {
      const mail = await startSmtpSink()
      const served = await serve(env, "ingress", { GEP_SMTP_URL: mail.url })
      try {
        consoleLoad = { reservations: account.reservations, fill_s, ...await consolePhase({
          sql, baseUrl: served.baseUrl, sink: mail, tenantId: own.tenant_id,
          addStaff: (email) => gep(env, ["staff", "add", "--tenant", own.tenant_id, "--email", email, "--role", "operator"])
        }) }
        say("console", { cold_shown_ms: consoleLoad.cold_shown_ms, warm_shown_ms: consoleLoad.warm_shown_ms })
      } finally {
        await served.stop()
        await mail.close()
      }
    }
  }

  // ---- report ------------------------------------------------------------------------------------------------
  const rawPublish = rawJs?.publish.ops_per_s ?? null
  const rawUpsert = rawPg?.single_row.ops_per_s ?? null
  const single = phases.single?.load.reservations_per_s ?? null
  const batch = phases.batch?.load.reservations_per_s ?? null
  const longRate = (long?.load as LoadResult | undefined)?.reservations_per_s ?? null
  const rate = (r: number) => phases[`rate_${r}`]?.load
  const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : round(a / b, 3))
  const workerRss = (long?.worker_rss_mb_at_end as number | undefined) ?? null
  const retained = long?.storage_after_retention as Awaited<ReturnType<typeof storageAfterRetention>> | undefined
  const cpuMs = (p: typeof phases.single) => (p ? costModel(p)?.cpu_ms_per_reservation.platform_total ?? null : null)
  const autovacuumReport = await autovacuum.stop()
  const result = {
    bench: "gep platform benchmark (issue 6, item 6; targets of issue 9)",
    run_id: runId,
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    duration_s: round((Date.now() - startedAt.getTime()) / 1000, 0),
    quick,
    // Headline figures (the keys).
    raw_js_publish_per_s: rawPublish,
    raw_pg_upsert_per_s: rawUpsert,
    single_per_s: single,
    batch_per_s: batch,
    p99_ms_at_1000: rate(1000)?.latency_ms.p99 ?? null,
    worker_rss_mb: workerRss,
    rows_per_reservation: writes?.rows_per_reservation ?? null,
    rows_written: writes ?? null,
    cpu_ms_per_reservation_single: cpuMs(phases.single),
    cpu_ms_per_reservation_batch: cpuMs(phases.batch),
    inbox_outbox_rows_after_retention: retained?.inbox_outbox_rows ?? null,
    envelopes_total: retained?.envelopes_total ?? null,
    ...Object.fromEntries(settings.rates.flatMap((r) => [
      [`p50_ms_at_${r}`, rate(r)?.latency_ms.p50 ?? null],
      [`p95_ms_at_${r}`, rate(r)?.latency_ms.p95 ?? null],
      [`p99_ms_at_${r}`, rate(r)?.latency_ms.p99 ?? null],
      [`achieved_per_s_at_${r}`, rate(r)?.reservations_per_s ?? null],
      [`errors_at_${r}`, rate(r) ? rate(r)!.failed + rate(r)!.missing_contact_ids : null]
    ])),
    sustainable_rate_per_s: sustainableRate ?? null,
    overload_offered_per_s: overload?.offered_per_s ?? null,
    overload_answered_within_2s_share: overload?.answered_within_2s_share ?? null,
    overload_accepted_per_s: overload?.accepted.per_s ?? null,
    overload_accepted_p99_ms: overload?.accepted.latency_ms.p99 ?? null,
    overload_shed: overload?.shed.count ?? null,
    overload_acknowledged_lost: overload?.acknowledged_lost ?? null,
    overload: overload ? { ...overload, admission: overloadAdmission, observed: overloadObserved } : null,
    p50_ms_at_sustainable: phases.rate_sustainable?.load.latency_ms.p50 ?? null,
    p95_ms_at_sustainable: phases.rate_sustainable?.load.latency_ms.p95 ?? null,
    p99_ms_at_sustainable: phases.rate_sustainable?.load.latency_ms.p99 ?? null,
    long_batch_per_s: longRate,
    email_sends_per_s: messages?.end_to_end_per_s ?? null,
    messages: messages ?? null,
    journey_starts_per_s: journeys?.starts.journey_starts_per_s ?? null,
    journey_wakeups_per_s: journeys?.burst.wakeups_per_s ?? null,
    journey_wake_lateness_p99_ms_under_load: journeys?.steady.wake_lateness_ms.p99 ?? null,
    journeys: journeys ?? null,
    loyalty_writes_per_s: loyalty?.writes_per_s ?? null,
    loyalty_redeem_p99_ms: loyalty?.redeem_latency_ms.p99 ?? null,
    loyalty: loyalty ?? null,
    website_events_per_s_server_batches: website?.server_batches_of_50.events_per_s ?? null,
    website_events_per_s_browser_single: website?.browser_single.events_per_s ?? null,
    website: website ?? null,
    cdp_events_per_s: cdp?.events.events_per_s ?? null,
    cdp_bulk_reservations_per_s: cdp && "reservations_per_s" in cdp.bulk ? cdp.bulk.reservations_per_s : null,
    cdp_bulk_without_visit_reservations_per_s: cdp && "reservations_per_s" in cdp.bulk_without_visit ? cdp.bulk_without_visit.reservations_per_s : null,
    cdp: cdp ?? null,
    segment_preview_ms_at_100k: segments?.slowest_preview_ms ?? null,
    segments: segments ?? null,
    broadcast_snapshot_per_s: broadcast?.snapshot_per_s ?? null,
    broadcast_emails_per_s: broadcast?.emails_per_s ?? null,
    broadcast: broadcast ?? null,
    privacy: privacy ?? null,
    overview_92_days_ms: overview?.read_ms_median_of_5.days_92 ?? null,
    overview: overview ?? null,
    console_slowest_warm_ms: consoleLoad?.slowest_warm_ms ?? null,
    console: consoleLoad ?? null,
    sso_sign_ins_per_s: sso?.sign_ins.per_s ?? null,
    sso_me_balance_per_s: sso?.me_balance.per_s ?? null,
    sso: sso ?? null,
    newsletter_subscribes_per_s: newsletter?.subscribes_per_s ?? null,
    newsletter: newsletter ?? null,
    contact_read_p99_ms_at_200: reads?.profile.latency_ms.p99 ?? null,
    timeline_read_p99_ms_at_200: reads?.timeline.latency_ms.p99 ?? null,
    reads: reads ?? null,
    worker_peak_rss_mb: (long?.worker_peak_rss_mb as number | undefined) ?? null,
    raw_pg_batch500_rows_per_s: rawPg?.batch_500.units_per_s ?? null,
    raw_js_consume_ack_per_s: rawJs?.consume_ack_per_s ?? null,
    actor_txn_per_s: actorTxn?.txn.ops_per_s ?? null,
    errors: {
      single: phases.single ? phases.single.load.failed + phases.single.load.missing_contact_ids : null,
      batch: phases.batch ? phases.batch.load.failed + phases.batch.load.missing_contact_ids : null,
      long: long ? (long.load as LoadResult).failed + (long.load as LoadResult).missing_contact_ids : null
    },
    ratios: {
      single_to_raw_js_publish: ratio(single, rawPublish),
      single_to_raw_pg_upsert: ratio(single, rawUpsert),
      batch_to_raw_js_publish: ratio(batch, rawPublish),
      batch_to_raw_pg_upsert: ratio(batch, rawUpsert),
      long_batch_to_raw_pg_upsert: ratio(longRate, rawUpsert),
      single_to_actor_txn: ratio(single, actorTxn?.txn.ops_per_s ?? null),
      batch_to_actor_txn: ratio(batch, actorTxn?.txn.ops_per_s ?? null),
      p99_at_1000_to_raw_js_ack_p99: ratio(rate(1000)?.latency_ms.p99 ?? null, rawJs?.ack_latency_1_in_flight_ms.p99 ?? null),
      p99_at_1000_to_raw_pg_commit_p99: ratio(rate(1000)?.latency_ms.p99 ?? null, rawPg?.commit_latency_1_in_flight_ms.p99 ?? null),
      p99_at_1000_to_actor_txn_p99: ratio(rate(1000)?.latency_ms.p99 ?? null, actorTxn?.txn_latency_1_in_flight_ms.p99 ?? null)
    },
    cost_model: {
      single: costModel(phases.single),
      batch: costModel(phases.batch),
      long: long ? costModel(long) : null
    },
    targets: TARGETS.map((t) => {
      const value = {
        single_per_s: single, batch_per_s: batch, p99_ms_at_500: rate(500)?.latency_ms.p99 ?? null, worker_rss_mb: workerRss,
        rows_per_reservation: writes?.rows_per_reservation ?? null,
        cpu_ms_per_reservation_single: cpuMs(phases.single),
        cpu_ms_per_reservation_batch: cpuMs(phases.batch),
        inbox_outbox_share_of_envelopes: retained && retained.envelopes_total > 0 ? round(retained.inbox_outbox_rows / retained.envelopes_total, 5) : null,
        email_sends_per_s: messages?.end_to_end_per_s ?? null,
        journey_starts_per_s: journeys?.starts.journey_starts_per_s ?? null,
        journey_wake_lateness_p99_ms_under_load: journeys?.steady.wake_lateness_ms.p99 ?? null,
        website_events_per_s_server_batches: website?.server_batches_of_50.events_per_s ?? null,
        website_events_per_s_browser_single: website?.browser_single.events_per_s ?? null,
        loyalty_writes_per_s: loyalty?.writes_per_s ?? null,
        segment_preview_ms_at_100k: segments?.slowest_preview_ms ?? null,
        broadcast_snapshot_per_s: broadcast?.snapshot_per_s ?? null,
        broadcast_emails_per_s: broadcast?.emails_per_s ?? null,
        contact_read_p99_ms_at_200: reads?.profile.latency_ms.p99 ?? null,
        timeline_read_p99_ms_at_200: reads?.timeline.latency_ms.p99 ?? null,
        overload_answered_within_2s_share: overload?.answered_within_2s_share ?? null,
        overload_accepted_p99_ms: overload?.accepted.latency_ms.p99 ?? null,
        overload_acknowledged_lost: overload?.acknowledged_lost ?? null
      }[t.key]
      return { ...t, value, pass: value === null ? null : t.op === ">=" ? value >= t.limit : value <= t.limit }
    }),
    platform_rss_at_start_mb: startRss,
    machine,
    autovacuum_stand_in: autovacuumReport,
    settings: { ...settings, only: settings.only ? [...settings.only] : undefined, database: env.databaseName, namespace: env.namespace },
    raw,
    phases,
    profiles,
    long,
    single_after_long: afterLong,
    explain
  }
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-")
  // A run of some phases only (BENCH_ONLY) never replaces the full report: it writes latest-<phases>.*.
  const suffix = (quick ? "-quick" : "") + (settings.only ? `-${[...settings.only].sort().join("-")}` : "")
  const json = JSON.stringify(result, null, 2)
  const md = renderMarkdown(result)
  if (!quick) {
    writeFileSync(`${RESULTS}${stamp}.json`, json)
    writeFileSync(`${RESULTS}${stamp}.md`, md)
  }
  writeFileSync(`${RESULTS}latest${suffix}.json`, json)
  writeFileSync(`${RESULTS}latest${suffix}.md`, md)
  say("report written", { json: `test/bench/results/latest${suffix}.json`, md: `test/bench/results/latest${suffix}.md` })
  await sql.end({ timeout: 5 })
  await nc.close()
}

main()
  .then(() => cleanupOnce())
  .catch(async (e: unknown) => {
    console.error(e)
    await cleanupOnce()
    process.exitCode = 1
  })
