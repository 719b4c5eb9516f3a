/**
 * What the platform writes and keeps (issue 29 item 4): rows written per reservation from `pg_stat_user_tables`, and
 * the size of the tables that grow with traffic, before and after the inbox retention window.
 */
import type { JetStreamManager } from "@nats-io/jetstream"
import type postgres from "postgres"
import { ingressStream } from "../../streams/subjects.ts"
import { round } from "./load.ts"

type Counts = Record<string, { readonly ins: number; readonly upd: number; readonly del: number }>

/** Rows inserted, updated and deleted so far, per table (PostgreSQL's cumulative statistics). */
export const tableWrites = async (sql: postgres.Sql): Promise<Counts> => {
  const rows = await sql`SELECT relname, n_tup_ins::float8 AS ins, n_tup_upd::float8 AS upd, n_tup_del::float8 AS del FROM pg_stat_user_tables`
  return Object.fromEntries(rows.map((r) => [r.relname as string, { ins: r.ins as number, upd: r.upd as number, del: r.del as number }]))
}

/**
 * Rows written per reservation between two snapshots: rows inserted, updated and deleted in every table, but for the
 * inbox rows the retention sweep deletes (one per envelope, 5,000 per statement), reported apart: whether they fall
 * inside a phase depends on the window, not on the phase.
 */
export const writesPerReservation = (before: Counts, after: Counts, reservations: number) => {
  const per_table: Record<string, number> = {}
  let total = 0
  for (const [table, a] of Object.entries(after)) {
    const b = before[table] ?? { ins: 0, upd: 0, del: 0 }
    const written = a.ins - b.ins + (a.upd - b.upd) + (table === "inbox" ? 0 : a.del - b.del)
    if (written > 0) per_table[table] = round(written / reservations, 3)
    total += written
  }
  const inboxRemoved = (after.inbox?.del ?? 0) - (before.inbox?.del ?? 0)
  return {
    rows_per_reservation: reservations > 0 ? round(total / reservations, 2) : null,
    per_table: Object.fromEntries(Object.entries(per_table).sort((x, y) => y[1] - x[1])),
    inbox_rows_removed_by_retention: inboxRemoved,
    reservations
  }
}

const TABLES = ["inbox", "outbox", "events", "reservations", "reservation_guests", "contacts", "contact_hotels"] as const

/** Rows and on-disk size (indexes and TOAST included) of the tables that grow with traffic; envelopes ever published. */
export const storageOf = async (sql: postgres.Sql, jsm: JetStreamManager, namespace: string) => {
  const tables: Record<string, { rows: number; mb: number }> = {}
  for (const t of TABLES) {
    const [r] = await sql`SELECT count(*)::float8 AS n, pg_total_relation_size(${t}::regclass)::float8 / 1048576 AS mb FROM ${sql(t)}`
    tables[t] = { rows: r!.n as number, mb: round(r!.mb as number, 1) }
  }
  const envelopes = (await jsm.streams.info(ingressStream(namespace))).state.last_seq
  return { tables, envelopes_total: envelopes, inbox_outbox_rows: tables.inbox!.rows + tables.outbox!.rows }
}

/**
 * The storage once the retention window has passed after the last write: waits the window and two sweeps (30 s apart)
 * more, or until the inbox and outbox are empty.
 */
export const storageAfterRetention = async (sql: postgres.Sql, jsm: JetStreamManager, namespace: string, retentionMs: number) => {
  const deadline = Date.now() + retentionMs + 65_000
  for (;;) {
    const s = await storageOf(sql, jsm, namespace)
    if (s.inbox_outbox_rows === 0 || Date.now() > deadline) return { ...s, retention_ms: retentionMs }
    await new Promise((r) => setTimeout(r, 5_000))
  }
}
