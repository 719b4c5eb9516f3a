/**
 * The overview statistics (GET /api/v1/overview, issue 27) on an account of its own filled by SQL
 * (`overviewFill.ts`: 1,000,000 reservations by default, `BENCH_OVERVIEW_RESERVATIONS`): the route's own read
 * (`readOverview`) timed over the default 14 days and the longest range (92 days), for the account and for one
 * hotel (median of 5 after one warm-up), and each of its statements replayed as EXPLAIN ANALYZE over 92 days
 * (postgres.js's `debug` hook records them with their parameters). Keys under `overview` in the JSON.
 */
import postgres from "postgres"
import { readOverview } from "../../src/overview/read.ts"
import type { OverviewRange } from "../../src/overview/range.ts"
import { fillOverview } from "./overviewFill.ts"

const DAY_MS = 86_400_000
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const rangeOf = (days: number, hotelId: string | undefined): OverviewRange => {
  const today = Date.parse(`${day(Date.now())}T00:00:00Z`)
  const from = today - (days - 1) * DAY_MS
  return { from: day(from), to: day(today), start: new Date(from).toISOString(), end: new Date(today + DAY_MS).toISOString(), hotel_id: hotelId }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

interface Captured { readonly query: string; readonly parameters: ReadonlyArray<unknown> }

/** Times the route's read and explains its statements; `fill` false when the account is already filled. */
export const overviewPhase = async (
  databaseUrl: string, o: { readonly tenantId: string; readonly hotelIds: ReadonlyArray<string>; readonly reservations: number; readonly fill: boolean }
) => {
  const captured: Array<Captured> = []
  let capturing = false
  const sql = postgres(databaseUrl, {
    max: 2, onnotice: () => {},
    debug: (_c, query, parameters) => {
      if (capturing) captured.push({ query, parameters: [...parameters] })
    }
  })
  try {
    const fillStarted = performance.now()
    if (o.fill) await fillOverview(sql, { tenantId: o.tenantId, hotelIds: o.hotelIds, reservations: o.reservations })
    const fill_s = Math.round((performance.now() - fillStarted) / 100) / 10
    const scope = { tenant_id: o.tenantId, sandbox: false }
    const timed = async (days: number, hotelId: string | undefined) => {
      const range = rangeOf(days, hotelId)
      await readOverview(sql, scope, range)
      const runs: Array<number> = []
      for (let i = 0; i < 5; i++) {
        const started = performance.now()
        await readOverview(sql, scope, range)
        runs.push(performance.now() - started)
      }
      return Math.round(median(runs) * 10) / 10
    }
    const ms = {
      days_14: await timed(14, undefined),
      days_92: await timed(92, undefined),
      days_14_one_hotel: await timed(14, o.hotelIds[0]),
      days_92_one_hotel: await timed(92, o.hotelIds[0])
    }
    capturing = true
    await readOverview(sql, scope, rangeOf(92, undefined))
    capturing = false
    const statements = captured.filter((c) => /^\s*SELECT/i.test(c.query) && !/set_config/.test(c.query))
    const explained = []
    for (const s of statements) {
      const [row] = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.query}`, s.parameters as Array<never>)
      const plan = (row as unknown as { "QUERY PLAN": Array<{ "Execution Time": number; Plan: PlanNode }> })["QUERY PLAN"][0]!
      explained.push({ statement: s.query.replace(/\s+/g, " ").slice(0, 90), execution_ms: Math.round(plan["Execution Time"] * 10) / 10, scans: scansOf(plan.Plan) })
    }
    return { reservations: o.reservations, fill_s, read_ms_median_of_5: ms, explain_92_days: explained }
  } finally {
    await sql.end()
  }
}

interface PlanNode { readonly "Node Type": string; readonly "Index Name"?: string; readonly "Relation Name"?: string; readonly Plans?: ReadonlyArray<PlanNode> }
const scansOf = (node: PlanNode, out: Array<string> = []): Array<string> => {
  if (/Scan/.test(node["Node Type"])) out.push(`${node["Node Type"]}${node["Index Name"] ? ` using ${node["Index Name"]}` : ""}${node["Relation Name"] ? ` on ${node["Relation Name"]}` : ""}`)
  for (const child of node.Plans ?? []) scansOf(child, out)
  return out
}
