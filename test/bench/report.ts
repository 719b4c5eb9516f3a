/** Markdown rendering of a bench result, and the data-driven reading of where the limit is. */
import { privacyLines } from "./privacyReport.ts"

/** Issue 29's targets (runtime v3), and the read side's (issue 24) and overload's (issue 30). */
export const TARGETS = [
  { key: "single_per_s", label: "single endpoint, reservations/s", op: ">=", limit: 1_500 },
  { key: "batch_per_s", label: "batch endpoint (50 per request), reservations/s", op: ">=", limit: 4_000 },
  { key: "p99_ms_at_500", label: "p99 latency at 500 requests/s offered, single endpoint, ms", op: "<=", limit: 50 },
  { key: "rows_per_reservation", label: "rows written per reservation, inbox and outbox included (the bench's own payload)", op: "<=", limit: 7 },
  { key: "cpu_ms_per_reservation_single", label: "platform CPU per reservation, single endpoint, ms", op: "<=", limit: 1 },
  { key: "cpu_ms_per_reservation_batch", label: "platform CPU per reservation, batch endpoint, ms", op: "<=", limit: 0.5 },
  { key: "worker_rss_mb", label: "worker RSS after the memory run, MB", op: "<=", limit: 250 },
  { key: "inbox_outbox_share_of_envelopes", label: "inbox + outbox rows after the memory run and the retention window, share of envelopes", op: "<=", limit: 0.01 },
  { key: "email_sends_per_s", label: "email sends/s to the SMTP sink, end to end", op: ">=", limit: 400 },
  { key: "journey_starts_per_s", label: "journey starts/s", op: ">=", limit: 1_000 },
  { key: "journey_wake_lateness_p99_ms_under_load", label: "journey wake lateness p99 under load, ms", op: "<=", limit: 1_000 },
  { key: "website_events_per_s_server_batches", label: "website events/s, server batches", op: ">=", limit: 3_000 },
  { key: "website_events_per_s_browser_single", label: "website events/s, browser single requests", op: ">=", limit: 600 },
  { key: "loyalty_writes_per_s", label: "loyalty writes/s (earn + redeem mix)", op: ">=", limit: 1_200 },
  // Issue 25: a segment preview on an account of 100,000 contacts (the slowest of four definitions, each run 5 times).
  { key: "segment_preview_ms_at_100k", label: "segment preview on 100,000 contacts, slowest answer, ms", op: "<=", limit: 2_000 },
  // Issue 25: one email broadcast to an account's 100,000 contacts: its snapshot, and its dispatch into the SMTP sink.
  { key: "broadcast_snapshot_per_s", label: "broadcast snapshot, recipients/s (100,000 contacts)", op: ">=", limit: 10_000 },
  { key: "broadcast_emails_per_s", label: "broadcast dispatch, emails/s into the SMTP sink, end to end", op: ">=", limit: 400 },
  // Issue 24's read side, on the database part (d) filled.
  { key: "contact_read_p99_ms_at_200", label: "p99 latency of GET /api/v1/contacts/{id} at 200 requests/s, ms", op: "<=", limit: 20 },
  { key: "timeline_read_p99_ms_at_200", label: "p99 latency of a contact's timeline (50 items) at 200 requests/s, ms", op: "<=", limit: 20 },
  // Issue 30's overload phase: 3x the single-endpoint throughput offered.
  { key: "overload_answered_within_2s_share", label: "at 3x the sustained rate, share of requests answered within 2 s", op: ">=", limit: 1 },
  { key: "overload_accepted_p99_ms", label: "at 3x the sustained rate, p99 latency of the writes let in, ms", op: "<=", limit: 1_000 },
  { key: "overload_acknowledged_lost", label: "at 3x the sustained rate, acknowledged writes not stored", op: "<=", limit: 0 }
] as const

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the result is a plain JSON document built in bench.ts
type Json = any

const n = (x: unknown, digits = 0): string => {
  if (x === null || x === undefined || Number.isNaN(x)) return "–"
  const v = Number(x)
  return v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 })
}
const x = (a: unknown, b: unknown) => (typeof a === "number" && typeof b === "number" && b > 0 ? `${(a / b).toFixed(3)}×` : "–")
const cpu = (c: Json) =>
  c ? `ingress ${c.ingress} · worker ${c.worker} · postgres ${c.postgres} · nats ${c.nats} · bench ${c.bench} · other ${c.other}${c.steal ? ` · steal ${c.steal}` : ""} · **total ${c.machine_busy}/${c.machine_cores}**` : "–"
const sched = (s: Json) =>
  s ? ["ingress", "worker", "postgres", "bench"].filter((k) => s[k]).map((k) => `${k} ${s[k].on_cpu}/${s[k].run_queue_wait}`).join(" · ") : "–"
const statuses = (s: Record<string, number> | undefined) => (s ? Object.entries(s).map(([k, v]) => `${k}: ${n(v)}`).join(", ") : "–")

/** A storage snapshot (bench/storage.ts): rows and MB per table, envelopes ever published. */
const storageLines = (label: string, st: Json): Array<string> =>
  st
    ? [`- ${label}: ${Object.entries(st.tables).map(([t, v]: [string, Json]) => `${t} ${n(v.rows)} rows / ${n(v.mb, 1)} MB`).join(", ")}; ` +
      `${n(st.envelopes_total)} envelopes published in all; **inbox + outbox ${n(st.inbox_outbox_rows)} rows**`]
    : []

const loadRow = (name: string, p: Json) => {
  if (!p) return ""
  const l = p.load, o = p.observed
  return `| ${name} | ${l.concurrency ?? l.target_rate_per_s} | ${n(l.requests_per_s)} | **${n(l.reservations_per_s)}** | ${n(l.latency_ms.p50, 1)} | ${n(l.latency_ms.p95, 1)} | ${n(l.latency_ms.p99, 1)} | ${n(l.failed + l.missing_contact_ids)} | ${statuses(l.statuses)}${l.item_statuses ? `; items ${statuses(l.item_statuses)}` : ""} | ${o.backlog.mean_ack_pending} / ${o.backlog.max_pending} | ${n(o.probe_js_ack_ms.p50, 2)} / ${n(o.probe_pg_commit_ms.p50, 2)} |`
}

export const renderMarkdown = (r: Json): string => {
  const lines: Array<string> = []
  const push = (...s: Array<string>) => lines.push(...s)
  const raw = r.raw ?? {}
  const js = raw.jetstream, pg = raw.postgres, txn = raw.actor_transaction
  const m = r.machine
  push(
    `# Platform benchmark — ${r.started_at}${r.quick ? " (quick mode: small sizes, not for conclusions)" : ""}`,
    "",
    `Machine: ${m.cores} cores (${m.cpu_model}), ${m.memory_gb} GB; load average at start ${m.loadavg_at_start.join(" / ")}; Node ${m.node}; ` +
      `nats-server ${m.nats_server}; PostgreSQL ${m.postgres} (${Object.entries(m.postgres_settings).map(([k, v]) => `${k}=${v}`).join(", ")}); ` +
      `commit \`${m.commit}\`${m.dirty_platform_sources ? " (platform sources modified in the working tree)" : ""}.`,
    "",
    `Everything shares the ${m.cores} cores: NATS, PostgreSQL, one ingress process, one worker process (16 partitions), the load generator ` +
      `(this process, node:http keep-alive) and whatever else runs on the machine (column "other"). Run \`${r.run_id}\`, ` +
      `database \`${r.settings.database}\` and namespace \`${r.settings.namespace}\` (both removed at the end).` +
      (r.autovacuum_stand_in === undefined ? "" : ` This machine's PostgreSQL runs with autovacuum off, production's with it on: ` +
        `the bench applied autovacuum's rules to its database every ${r.autovacuum_stand_in.interval_s} s ` +
        `(${r.autovacuum_stand_in.analyses} ANALYZE, ${r.autovacuum_stand_in.vacuums} VACUUM, ${n(r.autovacuum_stand_in.busy_s, 1)} s in all; \`autovacuum.ts\`).`),
    "",
    "## Targets",
    "",
    "| target | measured | limit | result |",
    "|---|---:|---:|---|"
  )
  for (const t of r.targets) {
    push(`| ${t.label} | ${n(t.value, t.limit <= 1 ? 4 : 1)} | ${t.op} ${n(t.limit, t.limit < 1 ? 2 : t.limit < 10 ? 1 : 0)} | ${t.pass === null ? "not measured" : t.pass ? "**pass**" : "**miss**"} |`)
  }
  if (r.rows_written) {
    const w = r.rows_written
    push(
      "",
      `Rows written per reservation in the single phase (\`pg_stat_user_tables\`: rows inserted, updated and deleted in ` +
        `every table, the inbox's retention sweep apart), over ${n(w.reservations)} reservations: **${n(w.rows_per_reservation, 2)}**; ` +
        `${Object.entries(w.per_table).map(([t, v]) => `${t} ${v}`).join(", ")}. Inbox rows the retention sweep removed meanwhile ` +
        `(earlier phases' envelopes, 5,000 per statement): ${n(w.inbox_rows_removed_by_retention)}.`
    )
  }
  push(
    "",
    "## Figures and their ratio to the raw limits (a)",
    "",
    "| figure | value | ÷ raw JetStream publish | ÷ raw PostgreSQL upsert | ÷ actor transaction alone |",
    "|---|---:|---:|---:|---:|"
  )
  const rawJs = r.raw_js_publish_per_s, rawPg = r.raw_pg_upsert_per_s, rawTxn = r.actor_txn_per_s
  const fig = (label: string, v: unknown) => push(`| ${label} | ${n(v)} | ${x(v, rawJs)} | ${x(v, rawPg)} | ${x(v, rawTxn)} |`)
  fig("(a) raw JetStream acked publish, msg/s (`raw_js_publish_per_s`)", rawJs)
  fig("(a) raw PostgreSQL single-row upsert, rows/s (`raw_pg_upsert_per_s`)", rawPg)
  fig("(a) raw PostgreSQL 500-row upsert, rows/s", r.raw_pg_batch500_rows_per_s)
  fig("(a) raw JetStream pull consume + ack, msg/s", r.raw_js_consume_ack_per_s)
  fig("(a) reservation actor transaction alone (in-process, no HTTP/NATS), txn/s", rawTxn)
  fig("(b) single endpoint, reservations/s (`single_per_s`)", r.single_per_s)
  fig("(b) batch endpoint, reservations/s (`batch_per_s`)", r.batch_per_s)
  fig("(d) batch endpoint over the whole memory run, reservations/s", r.long_batch_per_s)
  if (r.sustainable_rate_per_s) fig(`(c) achieved at ${n(r.sustainable_rate_per_s)}/s offered (extra rate), reservations/s`, r.phases?.rate_sustainable?.load.reservations_per_s)
  for (const rate of r.settings.rates) fig(`(c) achieved at ${n(rate)}/s offered, reservations/s`, r[`achieved_per_s_at_${rate}`])
  push(
    "",
    "Latency ratios: p99 at 1,000/s ÷ raw JetStream ack p99 (1 in flight) = " +
      `${r.ratios.p99_at_1000_to_raw_js_ack_p99 ?? "–"}; ÷ raw PostgreSQL commit p99 (1 in flight) = ${r.ratios.p99_at_1000_to_raw_pg_commit_p99 ?? "–"}; ` +
      `÷ actor transaction p99 (1 in flight) = ${r.ratios.p99_at_1000_to_actor_txn_p99 ?? "–"}.`,
    ""
  )

  if (js || pg || txn) {
    push("## (a) Raw limits", "")
    if (js) {
      push(
        `- **JetStream** (file storage, work-queue stream, Nats-Msg-Id on every message, ${js.in_flight} in flight, ${n(js.envelope_bytes_mean)}-byte msgpack ` +
          `reservation envelopes as the ingress builds them): **${n(js.publish.ops_per_s)} msg/s**; ack latency under that load p50 ${n(js.publish.latency_ms.p50, 2)} ms, ` +
          `p99 ${n(js.publish.latency_ms.p99, 2)} ms; at 1 in flight p50 ${n(js.ack_latency_1_in_flight_ms.p50, 3)} ms, p99 ${n(js.ack_latency_1_in_flight_ms.p99, 3)} ms. ` +
          `Pull consume + ack (128 per pull): ${n(js.consume_ack_per_s)} msg/s. Core NATS request/reply: p50 ${n(js.core_request_reply_ms.p50, 3)} ms.`
      )
    }
    if (pg) {
      push(
        `- **PostgreSQL** (copy of \`reservations\` with its unique key, the actor's 34 columns incl. 3 jsonb, 90 % inserts / 10 % conflict updates, ` +
          `one autocommit statement per row, ${pg.in_flight} in flight on ${pg.pool} connections): **${n(pg.single_row.ops_per_s)} rows/s**; ` +
          `commit latency at 1 in flight p50 ${n(pg.commit_latency_1_in_flight_ms.p50, 3)} ms, p99 ${n(pg.commit_latency_1_in_flight_ms.p99, 3)} ms. ` +
          `500 rows per statement: ${n(pg.batch_500.units_per_s)} rows/s.`
      )
    }
    if (txn) {
      push(
        `- **The reservation actor's transaction alone** (\`applyGroup\` of one envelope + the reservation actor in this process, ${txn.in_flight} in flight on ${txn.pool} ` +
          `connections like the worker, no HTTP, no NATS): **${n(txn.txn.ops_per_s)} txn/s**, ${txn.statements_per_txn} statements per transaction ` +
          `(incl. BEGIN/COMMIT; the actor pipelines some of them, so there are fewer round trips); latency at 1 in flight p50 ${n(txn.txn_latency_1_in_flight_ms.p50, 2)} ms, p99 ${n(txn.txn_latency_1_in_flight_ms.p99, 2)} ms.`
      )
    }
    const during = raw.cpu_cores_during ?? {}
    if (Object.keys(during).length > 0) {
      push(
        "",
        "CPU while each limit was measured (the bench process drives the load; other = the rest of the machine): " +
          Object.entries(during).map(([k, c]: [string, Json]) =>
            `${k}: bench ${c.bench}, nats ${c.nats}, postgres ${c.postgres}, other ${c.other}, total ${c.machine_busy}/${c.machine_cores}`).join("; ") + "."
      )
    }
    push("")
  }

  const phases = r.phases ?? {}
  const header = [
    "| phase | concurrency / offered rate | requests/s | reservations/s | p50 ms | p95 ms | p99 ms | errors | statuses | worker unacked mean / max undelivered | probe: JS ack / PG commit p50 ms |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
  ]
  if (phases.single || phases.batch) {
    push("## (b) Sustained throughput (closed loop)", "", ...header)
    if (phases.single) push(loadRow("single `POST /api/v1/reservations`", phases.single))
    if (phases.batch) push(loadRow(`batch \`/reservations/batch\` (${r.settings.batch_size} per request)`, phases.batch))
    if (r.single_after_long) push(loadRow("single, after the memory run (full database)", r.single_after_long))
    push(
      "",
      "CPU, in cores used (from /proc/<pid>/stat; postgres = the server's processes and this run's backends; other = the rest of the machine; steal = time the hypervisor gave other guests, when any), " +
        "and main-thread time on a CPU / waiting in the run queue for one, as shares of wall time (/proc/<pid>/schedstat; postgres summed over its processes):",
      ""
    )
    for (const [label, p] of [["single", phases.single], ["batch", phases.batch], ["single after the memory run", r.single_after_long]] as const) {
      if (p) push(`- ${label}: ${cpu(p.observed.cpu_cores)}; on CPU / waiting: ${sched(p.observed.sched)}`)
    }
    push(
      "",
      "CPU cost per reservation (cores used ÷ reservations/s) and the throughput the machine's cores would allow at that cost:",
      "",
      "| phase | ingress ms | worker ms | PostgreSQL ms | NATS ms | platform total ms | load generator ms | ceiling with all cores, /s |",
      "|---|---:|---:|---:|---:|---:|---:|---:|"
    )
    for (const [label, p] of [["single", phases.single], ["batch", phases.batch], ["memory run (batch)", r.long], ["single after the memory run", r.single_after_long]] as const) {
      const c = costModel(p)
      if (!c) continue
      const m = c.cpu_ms_per_reservation
      push(`| ${label} | ${m.ingress} | ${m.worker} | ${m.postgres} | ${m.nats} | **${m.platform_total}** | ${m.load_generator} | ${n(c.ceiling_per_s_all_cores)} |`)
    }
    push("")
  }
  const rates: Array<string> = [
    ...(phases.rate_sustainable ? ["sustainable"] : []),
    ...r.settings.rates.filter((rate: number) => phases[`rate_${rate}`]).map(String)
  ]
  if (rates.length > 0) {
    push(
      "## (c) Latency at fixed arrival rates (open loop, single endpoint)",
      "",
      "Latency is measured from each request's scheduled send time, so queueing anywhere (including in the client's socket pool) counts. " +
        (phases.rate_sustainable
          ? `The first row is an extra rate, half the single-endpoint throughput measured in (b) (${n(r.sustainable_rate_per_s)}/s), run on the small database ` +
            "before the memory part: the latency when the platform is not overloaded. The issue's rates run after the memory part, on the full database."
          : ""),
      "",
      "| offered/s | achieved/s | p50 ms | p95 ms | p99 ms | p99.9 ms | max ms | errors | service p99 ms | generator lag max ms | CPU total | JS ack / PG commit probe p50 ms |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
    )
    for (const rate of rates) {
      const p = phases[`rate_${rate}`], l = p.load, o = p.observed
      push(
        `| ${rate === "sustainable" ? `${n(r.sustainable_rate_per_s)} (extra)` : n(Number(rate))} | ${n(l.reservations_per_s)} | ${n(l.latency_ms.p50, 1)} | ${n(l.latency_ms.p95, 1)} | **${n(l.latency_ms.p99, 1)}** | ${n(l.latency_ms.p999, 1)} | ` +
          `${n(l.latency_ms.max, 1)} | ${n(l.failed + l.missing_contact_ids)} | ${n(l.service_latency_ms?.p99, 1)} | ${n(l.max_schedule_lag_ms, 1)} | ` +
          `${o.cpu_cores.machine_busy}/${o.cpu_cores.machine_cores} (ingress ${o.cpu_cores.ingress}, worker ${o.cpu_cores.worker}, pg ${o.cpu_cores.postgres}) | ` +
          `${n(o.probe_js_ack_ms.p50, 2)} / ${n(o.probe_pg_commit_ms.p50, 2)} |`
      )
    }
    push("")
  }

  const long = r.long
  if (long) {
    const l = long.load
    push(
      "## (d) Worker memory after the memory run",
      "",
      `${n(long.reservations_sent)} reservations (${n(long.new_reservations)} new, ${n(long.updates)} updates) over a pool of ${n(long.contacts_pool)} people, ` +
        `through the batch endpoint (${r.settings.batch_concurrency} concurrent requests of ${r.settings.batch_size}) as fast as it goes: ` +
        `${n(l.reservations_per_s)} reservations/s over ${n(long.wall_s)} s; ${n(l.failed)} failed, ${n(l.missing_contact_ids)} without contact ids; statuses ${statuses(l.statuses)}` +
        `${l.item_statuses ? `, items ${statuses(l.item_statuses)}` : ""}.`,
      "",
      `- worker RSS (VmRSS of the worker process): just started ${n(long.worker_rss_at_start_mb, 1)} MB, before this run ${n(long.worker_rss_before_mb, 1)} MB, ` +
        `**at the end ${n(long.worker_rss_mb_at_end, 1)} MB**, after 10 s idle ${n(long.worker_rss_mb_after_10s_idle, 1)} MB, after a forced full GC ` +
        `${n(long.worker_rss_mb_after_full_gc, 1)} MB, peak (VmHWM) ${n(long.worker_peak_rss_mb, 1)} MB`,
      ...(long.worker_heap?.before_gc
        ? [`- worker V8 heap (process.memoryUsage through the inspector): before GC ${long.worker_heap.before_gc.heap_used_mb} MB used of ` +
          `${long.worker_heap.before_gc.heap_total_mb} MB, external ${long.worker_heap.before_gc.external_mb} MB; after a full GC ` +
          `${long.worker_heap.after_gc?.heap_used_mb} MB used of ${long.worker_heap.after_gc?.heap_total_mb} MB`]
        : []),
      `- ingress RSS at the end ${n(long.ingress_rss_mb_at_end, 1)} MB, peak ${n(long.ingress_peak_rss_mb, 1)} MB`,
      `- database afterwards (whole run, live mode): ${Object.entries(long.db_counts ?? {}).map(([k, v]) => `${k} ${n(v)}`).join(", ")}`,
      ...storageLines("storage at the end of the run", long.storage_at_end),
      ...storageLines(`storage once the inbox retention window (${n((long.storage_after_retention?.retention_ms ?? 0) / 1000)} s) and two sweeps passed`, long.storage_after_retention),
      `- CPU during the run: ${cpu(long.observed.cpu_cores)}; on CPU / waiting: ${sched(long.observed.sched)}`,
      `- PostgreSQL during the run: ${n(long.observed.pg.commits_per_s)} commits/s, ${n(long.observed.pg.rollbacks_per_s, 1)} rollbacks/s, ` +
        `${n(long.observed.pg.wal_syncs_per_s)} WAL fsyncs/s (${long.observed.pg.wal_syncs_per_commit} per commit, cluster-wide), ${n(long.observed.pg.wal_bytes_per_s / 1e6, 1)} MB WAL/s`,
      ""
    )
    const series = long.rss_series as Array<{ t_s: number; ok: number; worker_rss_mb: number; ingress_rss_mb: number }>
    if (series.length > 0) {
      const step = Math.max(1, Math.ceil(series.length / 12))
      push("| t (s) | reservations answered | worker RSS MB | ingress RSS MB |", "|---:|---:|---:|---:|")
      for (let i = 0; i < series.length; i += step) {
        const s = series[i]!
        push(`| ${s.t_s} | ${n(s.ok)} | ${s.worker_rss_mb} | ${s.ingress_rss_mb} |`)
      }
      push("")
    }
  }

  if (r.reads) {
    const rd = r.reads
    const row = (name: string, x: Json) =>
      `| ${name} | ${n(x.rate_per_s)} | ${n(x.achieved_per_s, 1)} | ${n(x.latency_ms.p50, 1)} | ${n(x.latency_ms.p95, 1)} | **${n(x.latency_ms.p99, 1)}** | ` +
      `${n(x.latency_ms.max, 1)} | ${statuses(x.statuses)} | ${n(x.incomplete)} / ${n(x.unfinished)} |`
    push(
      "## Reads on the filled database: a contact's profile and its timeline (open loop)",
      "",
      `Profiles of contacts drawn at random (${n(rd.contacts_sampled)} sampled from the table); timelines of ${n(rd.seed.contacts)} contacts given ` +
        `${n(rd.seed.events_each)} core events each through the API first (${n(rd.seed.seconds, 1)} s; ${statuses(rd.seed.statuses)}), read 50 items a page. ` +
        `Latency from the scheduled instant, after ${n(rd.warm_up_s ?? 0)} s of each route at the rate (not measured: new pool connections prepare their statements).` +
        (rd.timeline_statement_ms ? ` One timeline page's statement, EXPLAIN ANALYZE: planning ${n(rd.timeline_statement_ms.planning, 2)} ms, execution ${n(rd.timeline_statement_ms.execution, 2)} ms.` : "") +
        (rd.profile_statement ? ` The profile's one statement (its answer's JSON built by PostgreSQL), generic plan, EXPLAIN ANALYZE: planning ` +
          `${n(rd.profile_statement.planning_ms, 2)} ms, execution ${n(rd.profile_statement.execution_ms, 2)} ms; its scans: ` +
          `${(rd.profile_statement.generic_plan_scans as Array<string>).join(", ")}.` : "") +
        (rd.analysed_s === undefined ? "" : ` The database was analysed first (ANALYZE, ${n(rd.analysed_s, 1)} s): autovacuum is off on this machine, and production's would have gathered the planner's statistics.`),
      "",
      "| route | offered/s | answered/s | p50 ms | p95 ms | p99 ms | max ms | statuses | short pages / unfinished |",
      "|---|---:|---:|---:|---:|---:|---:|---|---:|",
      row("GET /api/v1/contacts/{id}", rd.profile),
      row("GET /api/v1/contacts/{id}/timeline?limit=50", rd.timeline),
      ""
    )
    for (const [name, x] of [["profile", rd.profile], ["timeline", rd.timeline]] as const) {
      const o = x.observed
      if (!o) continue
      // Older reports have no over_10ms / over_25ms: the mean alone then.
      const beyond = (e: Json) => (e.over_10ms === undefined ? "" : ` (${n(e.over_10ms)} over 10 ms, ${n(e.over_25ms)} over 25 ms of ${n(e.requests)})`)
      const inside = Object.entries(o.ingress_server_ms ?? {}).map(([route, e]: [string, Json]) => `${route} ${n(e.mean_ms, 1)} ms${beyond(e)}`).join(", ")
      push(
        `- during the ${name} reads: ${cpu(o.cpu_cores)}; on CPU / waiting: ${sched(o.sched)}; ` +
          `PostgreSQL commit probe p50/p99 ${n(o.probe_pg_commit_ms.p50, 1)}/${n(o.probe_pg_commit_ms.p99, 1)} ms; ` +
          `time inside the ingress per request (mean, its /metrics): ${inside || "–"}; answers over 20 ms by second of the phase: ` +
          (Object.entries(x.over_20ms_by_second ?? {}).map(([t, c]) => `${t}s ${c}`).join(", ") || "none")
      )
      // The CPU of the seconds with the most slow answers.
      const worst = Object.entries(x.over_20ms_by_second ?? {}).sort((a, b) => (b[1] as number) - (a[1] as number)).slice(0, 3)
      const series = (x.cores_by_second ?? []) as Array<Record<string, number>>
      if (worst.length > 0 && series.length > 0) {
        push(`  - cores in its slowest seconds: ` + worst.map(([t]) => {
          const c = series[Number(t)]
          return c ? `${t}s: ${Object.entries(c).map(([k, v]) => `${k} ${v}`).join(", ")}` : `${t}s: –`
        }).join("; "))
      }
    }
    const ip = rd.ingress_profile
    if (ip) {
      push(
        `- the ingress profiled over a further pass of both routes (${n(ip.duration_s, 1)} s, \`${ip.file}\`): busy ${n(100 * ip.busy_share, 1)} % ` +
          `of wall time, ${n(100 * ip.gc_share_of_busy, 1)} % of that in garbage collection; by module: ` +
          ip.by_module.slice(0, 8).map((e: Json) => `${e.module} ${e.pct} %`).join(", ") +
          `; top functions: ${ip.top_self.slice(0, 8).map((e: Json) => `\`${e.fn}\` (${e.where}) ${e.pct} %`).join(", ")}`
      )
    }
    push("")
  }

  if (r.loyalty) {
    const l = r.loyalty
    push(
      "## (f) Loyalty writes: earns and redemptions mixed over the members (API → member actor → ledger)",
      "",
      `${n(l.operations)} writes (half earns, half redemptions, each with its own external_reference_id) over ${n(l.members)} members ` +
        `seeded with 10,000 points, ${l.concurrency} concurrent API clients.`,
      "",
      "| figure | value |",
      "|---|---:|",
      `| loyalty writes answered 200 per second | **${n(l.writes_per_s, 1)}** |`,
      `| redeem latency p50 / p99 (ms) | ${n(l.redeem_latency_ms.p50, 1)} / **${n(l.redeem_latency_ms.p99, 1)}** |`,
      `| earn latency p50 / p99 (ms) | ${n(l.earn_latency_ms.p50, 1)} / ${n(l.earn_latency_ms.p99, 1)} |`,
      `| answers by kind and status | ${Object.entries(l.statuses).map(([k, v]) => `${k}: ${n(v)}`).join(", ")} |`,
      `| members whose balance differs from Σ lots / lowest balance | ${n(l.ledger_mismatched_members)} / ${n(l.lowest_balance)} |`,
      ""
    )
  }

  if (r.segments) {
    const sg = r.segments
    push(
      "## Segment previews (POST /api/v1/segments/preview) on an account of its own",
      "",
      `${n(sg.contacts)} contacts filled by SQL in ${n(sg.fill_s, 1)} s (about 60 % with a stay, a fifth of those with two; core events ` +
        `and delivered emails for some), then each definition of test/bench/segments.ts previewed ${sg.repeats} times in a row.`,
      "",
      "| definition | count | status | p50 ms | max ms |",
      "|---|---:|---:|---:|---:|",
      ...Object.entries(sg.previews).map(([name, p]: [string, Json]) =>
        `| ${name} | ${n(p.count)} | ${p.status} | ${n(p.latency_ms.p50, 1)} | **${n(p.latency_ms.max, 1)}** |`),
      ""
    )
  }

  if (r.broadcast) {
    const bc = r.broadcast
    push(
      "## Broadcast: one utility email to every contact of an account of its own",
      "",
      `${n(bc.contacts)} contacts filled by SQL in ${n(bc.fill_s, 1)} s (the segments phase's fill, every contact with an email), ` +
        "one broadcast (category utility, no rate limit) sent through the API: snapshot in chunks of 5,000, dispatch in chunks of 500 " +
        "to the message actor, deliverer → SMTP sink (in the bench process). " +
        (bc.completed ? "Sent whole." : `Dispatch measured for ${n(bc.dispatch_window_s)} s from the first mail, then the broadcast cancelled (the rest skipped: at this rate the whole would take ${n(bc.targeted / (bc.emails_per_s || 1) / 60)} minutes).`),
      "",
      "| figure | value |",
      "|---|---:|",
      `| snapshot: recipients per second (started_at → phase leaves snapshotting; ${n(bc.targeted)} in ${n(bc.snapshot_s, 2)} s) | **${n(bc.snapshot_per_s, 1)}** |`,
      `| dispatch: emails per second into the sink (${n(bc.window_mails)} mails, first to last ${n(bc.first_to_last_mail_s, 1)} s) | **${n(bc.emails_per_s, 1)}** |`,
      `| send → first mail (s) | ${n(bc.send_to_first_mail_s, 1)} |`,
      `| mails caught / distinct Message-IDs / duplicated Message-IDs | ${n(bc.mails_caught)} / ${n(bc.distinct_message_ids)} / ${n(bc.duplicates)} |`,
      `| counts: sent / skipped / failed | ${n(bc.counts?.sent)} / ${n(bc.counts?.skipped)} / ${n(bc.counts?.failed)} |`,
      `| CPU cores during the snapshot | ${cpu(bc.cpu_cores?.snapshot)} |`,
      `| CPU cores during dispatch | ${cpu(bc.cpu_cores?.dispatch)} |`,
      ""
    )
  }

  push(...privacyLines(r.privacy))

  if (r.messages) {
    const mm = r.messages
    push(
      "## (e) Email sends through the one send path (API → message actor → outbox → deliverer → SMTP sink)",
      "",
      `${n(mm.sends)} utility emails to distinct contacts, 64 concurrent API clients, nodemailer pool of 8 connections to a local ` +
        "SMTP server (smtp-server + mailparser in the bench process, which also runs the load).",
      "",
      "| figure | value |",
      "|---|---:|",
      `| end to end: mails caught per second (first request to last mail) | **${n(mm.end_to_end_per_s, 1)}** |`,
      `| API: sends accepted per second (202) | ${n(mm.api_accept_per_s, 1)} |`,
      `| API latency p50 / p99 (ms) | ${n(mm.api_latency_ms.p50, 1)} / ${n(mm.api_latency_ms.p99, 1)} |`,
      `| queued → sent p50 / p99 (ms) | ${n(mm.queue_to_sent_ms.p50, 1)} / ${n(mm.queue_to_sent_ms.p99, 1)} |`,
      `| mails caught / accepted / sent in the database | ${n(mm.mails_caught)} / ${n(mm.accepted)} / ${n(mm.sent_in_db)} |`,
      `| Message-IDs caught more than once | ${n(mm.duplicates)} |`,
      `| CPU cores, first request to last mail | ${cpu(mm.cpu_cores)} |`,
      ""
    )
  }

  const profiles = r.profiles ?? {}
  if (Object.keys(profiles).length > 0) {
    push(
      "## Where the CPU goes (V8 sampling profiles of the spawned processes under closed-loop load)",
      "",
      "Percentages are of the process's busy samples (idle excluded); `busy` is the share of wall time its main thread was on a CPU. " +
        "Full profiles: the `.cpuprofile` files named below (Chrome DevTools / speedscope), not committed.",
      ""
    )
    for (const [name, p] of Object.entries(profiles) as Array<[string, Json]>) {
      for (const role of ["ingress", "worker"] as const) {
        const s = p[role]
        if (!s) continue
        push(
          `### ${role}, ${name} endpoint (${n(p.load?.reservations_per_s)} reservations/s while profiled; busy ${(s.busy_share * 100).toFixed(0)} %, GC ${(s.gc_share_of_busy * 100).toFixed(1)} % of busy; \`${s.file}\`)`,
          "",
          ...(p.observed
            ? [`Measured from /proc over the same interval: ${role} used ${p.observed.cpu_cores[role]} cores; main thread on CPU ${p.observed.sched?.[role]?.on_cpu ?? "–"}, ` +
              `waiting for a CPU ${p.observed.sched?.[role]?.run_queue_wait ?? "–"} of wall time (the profiler counts both as busy). Machine: ${cpu(p.observed.cpu_cores)}.`, ""]
            : []),
          "Self time by module: " + s.by_module.slice(0, 12).map((e: Json) => `${e.module} ${e.pct} %`).join(" · "),
          "",
          "Inclusive share by library / layer (a sample counts for every one on its stack): " +
            (s.categories ?? []).map((e: Json) => `${e.category} ${e.pct} %`).join(" · "),
          "",
          "| top self-time functions | where | % |",
          "|---|---|---:|",
          ...s.top_self.slice(0, 12).map((e: Json) => `| \`${e.fn}\` | ${e.where} | ${e.pct} |`),
          "",
          "Inclusive time of project functions: " + s.project_inclusive.slice(0, 10).map((e: Json) => `\`${e.fn}\` (${e.where}) ${e.pct} %`).join(" · "),
          ""
        )
      }
    }
  }

  const ex = r.explain
  if (ex && ex.results) {
    push(
      "## PostgreSQL: the statements of one reservation transaction (EXPLAIN ANALYZE on the final database)",
      "",
      `Reservation ${ex.reservation} (${ex.guests} guests, update of a stored reservation): ${ex.statements} statements, ` +
        `${ex.total_execution_ms} ms of execution in total; sequential scans: ${ex.seq_scans.length === 0 ? "none" : ex.seq_scans.join("; ")}.`,
      "",
      "| statement | execution ms | planning ms | plan |",
      "|---|---:|---:|---|",
      ...ex.results.map((s: Json) => `| \`${s.statement.replace(/\|/g, "\\|")}\` | ${s.execution_ms ?? "–"} | ${s.planning_ms ?? "–"} | ${s.error ? `error: ${s.error}` : s.plan.join(", ")} |`),
      ""
    )
  }

  push("## Reading: what limits the platform here", "", ...analysis(r).map((s) => `- ${s}`), "")
  return lines.join("\n")
}

const PLATFORM_GROUPS = ["ingress", "worker", "postgres", "nats"] as const

/**
 * CPU milliseconds each operation cost, by platform process group and in all, from the cores each group used while
 * `perS` operations a second were answered (a reservation, a journey start, a loyalty write), and the load
 * generator's beside them.
 */
export const cpuMsPerOperation = (cores: Readonly<Record<string, number>>, perS: number) => {
  const per = (used: number) => Math.round((used * 1000 * 1000) / perS) / 1000
  const ms = Object.fromEntries(PLATFORM_GROUPS.map((g) => [g, per(cores[g] ?? 0)])) as Record<(typeof PLATFORM_GROUPS)[number], number>
  const platform = Math.round(PLATFORM_GROUPS.reduce((sum, g) => sum + ms[g], 0) * 1000) / 1000
  return { ...ms, platform_total: platform, load_generator: per(cores.bench ?? 0) }
}

/** CPU milliseconds spent per reservation answered, by process group, and what that allows on the whole machine. */
export const costModel = (p: Json) => {
  if (!p || !p.load || p.load.reservations_per_s <= 0) return null
  const c = p.observed.cpu_cores
  const ms = cpuMsPerOperation(c, p.load.reservations_per_s)
  const platform = ms.platform_total
  return {
    cpu_ms_per_reservation: ms,
    /** Reservations/s the machine's cores would allow at this cost if the platform had all of them, perfectly spread. */
    ceiling_per_s_all_cores: platform > 0 ? Math.round((c.machine_cores * 1000) / platform) : null
  }
}

/** Observations computed from the figures (the same rules on every run). */
export const analysis = (r: Json): Array<string> => {
  const out: Array<string> = []
  const phases = r.phases ?? {}
  const txn = r.raw?.actor_transaction
  const targetOf = { single: 1_000, batch: 3_000 } as const
  for (const [name, label] of [["single", "single endpoint"], ["batch", "batch endpoint"]] as const) {
    const p = phases[name]
    if (!p) continue
    const c = p.observed.cpu_cores
    const cost = costModel(p)
    const saturated = c.machine_busy >= 0.85 * c.machine_cores
    const waits = ["ingress", "worker", "postgres"].map((k) => `${k} ${p.observed.sched?.[k]?.run_queue_wait ?? "–"}`).join(", ")
    if (cost) {
      const m = cost.cpu_ms_per_reservation
      out.push(
        `${label}: ${n(p.load.reservations_per_s)} reservations/s cost **${m.platform_total} ms of CPU per reservation** across the platform ` +
          `(ingress ${m.ingress}, worker ${m.worker}, PostgreSQL ${m.postgres}, NATS ${m.nats}; the load generator ${m.load_generator} more). ` +
          `At that cost the ${c.machine_cores} cores allow at most ~${n(cost.ceiling_per_s_all_cores)} reservations/s even with nothing else running ` +
          `(target ${n(targetOf[name])}/s, i.e. the target needs ≤ ${n((c.machine_cores * 1000) / targetOf[name], 3)} ms per reservation in total).`
      )
    }
    out.push(
      `${label}: the machine was ${saturated ? "**CPU-saturated**" : "not saturated"} (${c.machine_busy} of ${c.machine_cores} cores busy, ${c.other} of them by other ` +
        `processes on the machine${c.steal ? `, ${c.steal} taken by the hypervisor for other guests` : ""}); run-queue waits, as shares of wall time spent runnable without a CPU: ${waits}.` +
        (c.ingress >= 0.85 ? " The ingress's main thread is at or near one full core: one Node process cannot go faster." : "") +
        (c.worker >= 0.85 ? " The worker's main thread is at or near one full core." : "") +
        ` Of the requests in flight, on average ${p.observed.backlog.mean_ack_pending} reservations were inside the worker (delivered, unacked: queued for one of its ` +
        `PostgreSQL connections or in a transaction) and ${p.observed.backlog.max_pending} at most waited undelivered in JetStream.` +
        (p.observed.ingress_server_ms && Object.keys(p.observed.ingress_server_ms).length > 0
          ? ` Time inside the ingress per request (its /metrics): ${Object.entries(p.observed.ingress_server_ms).map(([route, e]: [string, Json]) => `${route} ${n(e.mean_ms, 1)} ms`).join(", ")} ` +
            `vs ${n(p.load.latency_ms.mean, 1)} ms measured by the client.`
          : "")
    )
    out.push(
      `${label}: PostgreSQL ran ${n(p.observed.pg.commits_per_s)} commits/s (${n(p.observed.pg.commits_per_s / Math.max(1, p.load.reservations_per_s), 2)} per reservation) ` +
        `with ${p.observed.pg.wal_syncs_per_commit} WAL fsyncs per commit and ${n(p.observed.pg.rollbacks_per_s, 1)} rollbacks/s; a one-row commit probe took ` +
        `p50 ${n(p.observed.probe_pg_commit_ms.p50, 2)} ms (idle: ${n(r.raw?.postgres?.commit_latency_1_in_flight_ms?.p50, 2)} ms) and a JetStream publish ack ` +
        `p50 ${n(p.observed.probe_js_ack_ms.p50, 2)} ms (idle: ${n(r.raw?.jetstream?.ack_latency_1_in_flight_ms?.p50, 2)} ms): both services answer in milliseconds, ` +
        "so neither fsync nor JetStream acks is the limit; the CPU they need is." +
        (p.observed.pg.checkpoints !== undefined
          ? ` Checkpoints during the phase: ${n(p.observed.pg.checkpoints)} (writing ${n(p.observed.pg.checkpoint_write_ms)} ms, syncing ` +
            `${n(p.observed.pg.checkpoint_sync_ms)} ms, ${n(p.observed.pg.checkpoint_buffers)} buffers).`
          : "") +
        (txn
          ? ` The reservation transaction alone (in-process, ${txn.statements_per_txn} statements) reaches ${n(txn.txn.ops_per_s)} txn/s here, ` +
            `${x(txn.txn.ops_per_s, r.raw_pg_upsert_per_s)} of the raw single-row upsert rate: the per-reservation statement count, not PostgreSQL's row throughput, sets that ceiling.`
          : "")
    )
  }
  for (const [name, p] of Object.entries(r.profiles ?? {}) as Array<[string, Json]>) {
    for (const role of ["ingress", "worker"] as const) {
      const s2 = p[role]
      if (!s2) continue
      const mods = s2.by_module.slice(0, 5).map((e: Json) => `${e.module} ${e.pct} %`).join(", ")
      const fns = s2.top_self.slice(0, 4).map((e: Json) => `\`${e.fn}\` ${e.pct} %`).join(", ")
      const proj = s2.project_inclusive.filter((e: Json) => !e.where.includes("/") || /^(src|actors|streams|schemas)\//.test(e.where)).slice(0, 4)
        .map((e: Json) => `\`${e.fn}\` (${e.where}) ${e.pct} %`).join(", ")
      const cats = (s2.categories ?? []).slice(0, 6).map((e: Json) => `${e.category} ${e.pct} %`).join(", ")
      out.push(`profile ${role} (${name}): GC ${(s2.gc_share_of_busy * 100).toFixed(1)} % of busy samples; inclusive by layer: ${cats}; self time by module: ${mods}; ` +
        `top functions: ${fns}${proj ? `; project code, inclusive: ${proj}` : ""}.`)
    }
  }
  const rs = phases.rate_sustainable
  if (rs) {
    const l = rs.load
    out.push(
      `latency when not overloaded (${n(l.target_rate_per_s)}/s, half the measured single-endpoint throughput): p50 ${n(l.latency_ms.p50, 1)} ms, ` +
        `p95 ${n(l.latency_ms.p95, 1)} ms, p99 ${n(l.latency_ms.p99, 1)} ms, ${n(l.failed + l.missing_contact_ids)} errors, with ${rs.observed.cpu_cores.machine_busy} of ` +
        `${rs.observed.cpu_cores.machine_cores} cores busy; the ingress itself accounts for ${n(rs.observed.ingress_server_ms?.["/api/v1/reservations"]?.mean_ms, 1)} ms on average ` +
        `(its /metrics) of the ${n(l.latency_ms.mean, 1)} ms the client measured, and the transaction alone at 1 in flight takes p50 ` +
        `${n(txn?.txn_latency_1_in_flight_ms?.p50, 2)} ms.`
    )
  }
  const ov = r.overload
  if (ov) {
    const l = ov.load
    out.push(
      `overload (${n(ov.offered_per_s)}/s offered, ${ov.multiple_of_sustained}x the single-endpoint throughput, for ${n(l.duration_s)} s, ` +
        `${ov.warm_connections > 0 ? `${n(ov.warm_connections)} client connections open beforehand` : "clients connecting during the flood"}): ` +
        `${(ov.answered_within_2s_share * 100).toFixed(2)} % of requests answered within 2 s; ${n(ov.accepted.count)} writes let in ` +
        `(${n(ov.accepted.per_s)}/s), p50 ${n(ov.accepted.latency_ms.p50, 1)} ms, p99 ${n(ov.accepted.latency_ms.p99, 1)} ms, max ` +
        `${n(ov.accepted.latency_ms.max, 1)} ms; ${n(ov.shed.count)} answered 503 (p99 ${n(ov.shed.latency_ms.p99, 1)} ms), of which ` +
        `${n(ov.unavailable_but_stored)} were stored anyway (queued, not confirmed in time); statuses ${JSON.stringify(l.statuses)}; ` +
        `${n(ov.acknowledged_lost)} acknowledged writes missing; the generator ran at most ${n(l.max_schedule_lag_ms, 1)} ms behind its schedule` +
        (ov.admission?.at_start ? `; the ingress's admission limit was ${n(ov.admission.at_start.limit)} calls when the flood began and ${n(ov.admission.at_end?.limit)} at its end` : "") +
        (ov.observed ? `; ${ov.observed.cpu_cores.machine_busy} of ${ov.observed.cpu_cores.machine_cores} cores busy.` : ".")
    )
  }
  const r1000 = phases.rate_1000
  if (r1000) {
    const l = r1000.load
    const ok = l.latency_ms.p99 !== null && l.latency_ms.p99 <= 50
    const overloaded = l.reservations_per_s < 0.95 * (l.target_rate_per_s ?? 0)
    out.push(
      `latency at 1,000/s: p50 ${n(l.latency_ms.p50, 1)} ms, p99 ${n(l.latency_ms.p99, 1)} ms (${ok ? "within" : "over"} the 50 ms target)` +
        (overloaded
          ? `; the platform answered only ${n(l.reservations_per_s)}/s of the 1,000/s offered, so requests queued and latency is queueing time, not service time.`
          : `; the transaction alone at 1 in flight takes p50 ${n(txn?.txn_latency_1_in_flight_ms?.p50, 2)} ms, so ` +
            `${n((l.latency_ms.p50 ?? 0) - (txn?.txn_latency_1_in_flight_ms?.p50 ?? 0), 1)} ms of the median is HTTP, decoding, JetStream publish, delivery, reply and queueing.`)
    )
  }
  const long = r.long
  if (long) {
    const ok = long.worker_rss_mb_at_end <= 250
    const heap = long.worker_heap
    out.push(`worker memory: ${n(long.worker_rss_mb_at_end, 1)} MB after ${n(long.reservations_sent)} reservations (peak ${n(long.worker_peak_rss_mb, 1)} MB, ` +
      `${n(long.worker_rss_at_start_mb, 1)} MB just started), ${ok ? "within" : "over"} the 250 MB target.` +
      (heap?.before_gc && heap?.after_gc
        ? ` Live JavaScript data is small: ${heap.before_gc.heap_used_mb} MB used of a ${heap.before_gc.heap_total_mb} MB V8 heap, ${heap.after_gc.heap_used_mb} MB after a full GC, ` +
          `which brings the RSS to ${n(long.worker_rss_mb_after_full_gc, 1)} MB: the excess is heap V8 sized for the allocation rate and kept, not retained data (no leak).`
        : ""))
  }
  out.push(...readsAnalysis(r.reads))
  return out
}

/** What each read costs and what its tail is made of: CPU per request by process, and how busy the machine was. */
const readsAnalysis = (rd: Json): Array<string> => {
  if (!rd) return []
  const out: Array<string> = []
  for (const [name, x] of [["contact profile", rd.profile], ["timeline page", rd.timeline]] as const) {
    const o = x?.observed
    if (!o) continue
    const c = o.cpu_cores
    const per = (cores: number) => n((cores * 1000) / Math.max(1, x.achieved_per_s), 2)
    const slow = Object.values(x.over_20ms_by_second ?? {}).reduce((a: number, b) => a + (b as number), 0) as number
    const seconds = Object.keys(x.over_20ms_by_second ?? {}).length
    // The slow answers sent in a second whose ingress paused (GC, or an event-loop delay) for 20 ms or more.
    const series = (x.cores_by_second ?? []) as Array<Record<string, number>>
    const paused = (t: string) => {
      const c = series[Number(t)]
      return c !== undefined && ((c.ingress_gc_ms ?? 0) >= 20 || (c.ingress_loop_max_ms ?? 0) >= 20)
    }
    const inPauses = Object.entries(x.over_20ms_by_second ?? {}).filter(([t]) => paused(t)).reduce((a, [, c]) => a + (c as number), 0)
    const gcSeconds = series.filter((c) => c.ingress_gc_ms !== undefined)
    out.push(
      `${name} reads: p50 ${n(x.latency_ms.p50, 1)} ms, p99 ${n(x.latency_ms.p99, 1)} ms (${x.latency_ms.p99 <= 20 ? "within" : "over"} the 20 ms target); ` +
        `each read cost ${per(c.ingress)} ms of ingress CPU and ${per(c.postgres)} ms of PostgreSQL's (the load generator ${per(c.bench)} ms more) with ` +
        `${c.machine_busy} of ${c.machine_cores} cores busy (${c.other} by other processes) and run-queue waits ingress ${o.sched?.ingress?.run_queue_wait ?? "–"}, ` +
        `PostgreSQL ${o.sched?.postgres?.run_queue_wait ?? "–"} of wall time; ${n(slow)} answers over 20 ms, spread over ${seconds} of the ${n(x.duration_s)} seconds` +
        (seconds >= 0.5 * x.duration_s ? ": a spread, not a burst." : ".") +
        (gcSeconds.length === 0 ? "" :
          ` The ingress spent ${n(gcSeconds.reduce((a, c) => a + c.ingress_gc_ms!, 0) / gcSeconds.length, 1)} ms a second in garbage collection ` +
          `(at most ${n(Math.max(...gcSeconds.map((c) => c.ingress_gc_ms!)), 1)} ms in one second, longest event-loop delay ${n(Math.max(...gcSeconds.map((c) => c.ingress_loop_max_ms ?? 0)), 1)} ms); ` +
          `${n(inPauses)} of the ${n(slow)} slow answers were sent in a second where it paused 20 ms or more.`)
    )
  }
  const ip = rd.ingress_profile
  if (ip) {
    out.push(
      `reads, profile of the ingress: ${(ip.categories ?? []).slice(0, 6).map((e: Json) => `${e.category} ${e.pct} %`).join(", ")} (inclusive, of busy samples); ` +
        `GC ${(100 * ip.gc_share_of_busy).toFixed(1)} %.`
    )
  }
  return out
}
