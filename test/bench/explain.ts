/**
 * EXPLAIN ANALYZE of every statement of one real reservation transaction, on the database as the run left it.
 *
 * The platform's own `applyGroup` runs once, with one envelope, for a reservation whose guests are existing contacts, inside a
 * transaction that is rolled back; postgres.js's `debug` hook records each statement with its parameters. The
 * statements are then replayed in order, each as `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`, in a second
 * transaction that is also rolled back: nothing stays, and every plan is the one the worker gets.
 */
import postgres from "postgres"
import { Schema } from "effect"
import { Cause, Effect, Exit } from "effect"
import { applyGroup } from "../../actors/runtime/applyGroup.ts"
import { acquire, release } from "../../actors/runtime/leases.ts"
import { ReservationActor } from "../../actors/reservation/actor.ts"
import { ReservationRequest } from "../../schemas/reservation.ts"
import { toUpsertCommand } from "../../src/reservation/normalise.ts"
import type { Sql } from "../../core/db/Database.ts"
import { makePrivacyKey, PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { round } from "./load.ts"
import { envelopeOf } from "./raw.ts"

class Rollback extends Error {}

interface Captured {
  readonly query: string
  readonly parameters: ReadonlyArray<unknown>
  readonly types: ReadonlyArray<number>
}

export interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Actual Total Time"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** The scans of a plan (JSON format), depth first: `Index Scan using contacts_pkey on contacts`. */
export const scans = (node: PlanNode, out: Array<string> = []): Array<string> => {
  if (/Scan/.test(node["Node Type"]) || node["Node Type"] === "ModifyTable") {
    out.push(`${node["Node Type"]}${node["Index Name"] ? ` using ${node["Index Name"]}` : ""}${node["Relation Name"] ? ` on ${node["Relation Name"]}` : ""}`)
  }
  for (const child of node.Plans ?? []) scans(child, out)
  return out
}

export interface ExplainedStatement {
  readonly statement: string
  readonly execution_ms: number | null
  readonly planning_ms: number | null
  readonly plan: ReadonlyArray<string>
  readonly error?: string
}

/** `body`: a Reservations API request body, best an update of a stored reservation (its contacts exist). */
export const explainStatements = async (benchSql: postgres.Sql, tenantId: string, hotelId: string, body: Record<string, unknown>) => {
  const command = toUpsertCommand(Schema.decodeUnknownSync(ReservationRequest)(body) as ReservationRequest, hotelId)

  const captured: Array<Captured> = []
  let capturing = false
  const url = (benchSql.options as unknown as { host: Array<string>; port: Array<number>; database: string; user: string })
  const sql = postgres({
    host: url.host[0], port: url.port[0], database: url.database, username: url.user, max: 1, onnotice: () => {},
    debug: (_c, query, parameters, types) => {
      if (capturing) captured.push({ query, parameters: [...parameters], types: [...types] })
    }
  })
  try {
    // 1. Capture: the real transaction, rolled back.
    const rollingBack = {
      begin: (f: (tx: postgres.TransactionSql) => Promise<unknown>) =>
        sql.begin(async (tx) => {
          capturing = true
          await f(tx)
          capturing = false
          throw new Rollback()
        })
    } as unknown as Sql
    const envelope = envelopeOf(tenantId, false, command, "explain")
    // A lease of its own (another namespace than the worker's), so the fence check is part of the transaction.
    const fence = await acquire(sql, `explain-${envelope.id}`, "reservation", 0, "explain", 60_000)
    const exit = await Effect.runPromiseExit(applyGroup(rollingBack, ReservationActor, [envelope], { namespace: "explain", partitions: 16, fences: [fence ?? undefined] }).pipe(
      // The reservation actor hashes nothing; the runtime provides every actor the key all the same.
      Effect.provideService(PrivacyKey, makePrivacyKey(Buffer.alloc(32)))
    ))
    const failure = Exit.isFailure(exit) ? Cause.squash(exit.cause) as { cause?: unknown } : undefined
    if (failure !== undefined && !(failure.cause instanceof Rollback)) throw failure
    capturing = false
    if (fence) await release(sql, fence)

    // 2. Replay each statement under EXPLAIN ANALYZE, in order, in one transaction that is rolled back.
    const results: Array<ExplainedStatement> = []
    await sql.begin(async (tx) => {
      for (const c of captured) {
        const first = c.query.trim().split(/\s+/).slice(0, 6).join(" ")
        if (/^(begin|commit|rollback)/i.test(c.query.trim())) continue
        const params = c.parameters.map((v, i) => (c.types[i] ? tx.typed(v as never, c.types[i]!) : v)) as Array<postgres.ParameterOrJSON<never>>
        try {
          const rows = await tx.savepoint((sp) => sp.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${c.query}`, params))
          const plan = (rows[0] as unknown as { "QUERY PLAN": Array<{ Plan: PlanNode; "Execution Time": number; "Planning Time": number }> })["QUERY PLAN"][0]!
          results.push({ statement: summariseSql(c.query, first), execution_ms: round(plan["Execution Time"], 3), planning_ms: round(plan["Planning Time"], 3), plan: scans(plan.Plan) })
          // Apply the statement for real too, so later statements see its effect (EXPLAIN ANALYZE already did).
        } catch (e) {
          results.push({ statement: summariseSql(c.query, first), execution_ms: null, planning_ms: null, plan: [], error: String((e as Error).message ?? e) })
        }
      }
      throw new Rollback()
    }).catch((e: unknown) => {
      if (!(e instanceof Rollback)) throw e
    })
    const total = results.reduce((s, r) => s + (r.execution_ms ?? 0), 0)
    return {
      reservation: command.external_id,
      guests: command.guests.length,
      statements: results.length,
      total_execution_ms: round(total, 3),
      seq_scans: results.filter((r) => r.plan.some((p) => p.startsWith("Seq Scan"))).map((r) => r.statement),
      results
    }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

const summariseSql = (query: string, fallback: string) => {
  const q = query.replace(/\s+/g, " ").trim()
  const m = /^(?:WITH .*?\)\s*)?(SELECT .*? FROM \w+|INSERT INTO \w+|UPDATE \w+|DELETE FROM \w+|SELECT set_config)/i.exec(q)
  const head = m?.[1] ?? fallback
  return (q.startsWith("WITH") ? "WITH … " : "") + (head.length > 90 ? `${head.slice(0, 87)}...` : head)
}
