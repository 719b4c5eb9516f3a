import postgres from "postgres"
import { round } from "./load.ts"

/**
 * The bench database's stand-in for autovacuum. This machine's PostgreSQL runs without it (its CI configuration sets
 * `autovacuum = off`); a production PostgreSQL runs it (the default, and docs/operations require it). Without it no
 * table of the bench's fresh database ever gets planner statistics, and the planner, guessing, reads a tenant's every
 * contact for an identity lookup: measured here, the reservation group's `FOR UPDATE` lookup took 26 ms instead of
 * 0.4 ms, half of PostgreSQL's time in the single phase.
 *
 * Every `intervalMs` it applies autovacuum's own rules, with PostgreSQL's default thresholds, to every table:
 * - ANALYZE when the rows changed since the last analysis exceed 50 + 10 % of the table;
 * - VACUUM when dead rows exceed 50 + 20 % of the table, or rows inserted since the last vacuum exceed 1,000 + 20 %,
 *   throttled as autovacuum's workers are (cost delay 2 ms per 200 cost units).
 * It looks every 10 s where autovacuum looks every minute: the bench lives through a database's first hour in minutes,
 * and a database that has run for an hour has statistics. Its work runs in PostgreSQL backends, so the phases count it
 * as PostgreSQL's CPU, as they would count autovacuum's.
 */
export interface AutovacuumStandIn {
  readonly stop: () => Promise<AutovacuumReport>
}

export interface AutovacuumReport {
  readonly interval_s: number
  readonly analyses: number
  readonly vacuums: number
  /** Wall time spent in ANALYZE and VACUUM statements. */
  readonly busy_s: number
}

interface TableCounts {
  readonly table: string
  readonly reltuples: number
  readonly n_mod_since_analyze: number
  readonly n_dead_tup: number
  readonly n_ins_since_vacuum: number
}

/** Autovacuum's rules with PostgreSQL's default thresholds and scale factors (a never-counted table counts as empty). */
export const dueWork = (t: TableCounts): { readonly analyse: boolean; readonly vacuum: boolean } => {
  const rows = Math.max(0, t.reltuples)
  return {
    analyse: t.n_mod_since_analyze > 50 + 0.1 * rows,
    vacuum: t.n_dead_tup > 50 + 0.2 * rows || t.n_ins_since_vacuum > 1_000 + 0.2 * rows
  }
}

export const startAutovacuumStandIn = (databaseUrl: string, intervalMs = 10_000): AutovacuumStandIn => {
  // Throttled as autovacuum's workers are, set once for the connection's life (a startup parameter, not a SET a round).
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { vacuum_cost_delay: "2ms", vacuum_cost_limit: 200 } })
  let analyses = 0
  let vacuums = 0
  let busyMs = 0
  let stopped = false
  let pending: Promise<void> = Promise.resolve()

  const once = async () => {
    const tables = await sql<Array<TableCounts>>`
      SELECT format('%I.%I', s.schemaname, s.relname) AS table, c.reltuples::float8 AS reltuples,
        s.n_mod_since_analyze::float8 AS n_mod_since_analyze, s.n_dead_tup::float8 AS n_dead_tup,
        s.n_ins_since_vacuum::float8 AS n_ins_since_vacuum
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`
    for (const t of tables) {
      if (stopped) return
      const { analyse, vacuum } = dueWork(t)
      if (!analyse && !vacuum) continue
      const started = performance.now()
      // Skips a table another session holds exclusively (a DROP at cleanup) instead of waiting for it.
      await sql.unsafe(`${vacuum ? "VACUUM (SKIP_LOCKED" + (analyse ? ", ANALYZE" : "") + ")" : "ANALYZE (SKIP_LOCKED)"} ${t.table}`)
      busyMs += performance.now() - started
      if (vacuum) vacuums++
      if (analyse) analyses++
    }
  }
  const timer = setInterval(() => {
    pending = pending.then(once).catch(() => {})
  }, intervalMs)

  return {
    stop: async () => {
      stopped = true
      clearInterval(timer)
      await pending
      await sql.end({ timeout: 5 })
      return { interval_s: intervalMs / 1000, analyses, vacuums, busy_s: round(busyMs / 1000) }
    }
  }
}
