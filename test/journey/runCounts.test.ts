import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import fc from "fast-check"
import postgres from "postgres"
import { inject } from "vitest"
import { insertContact, insertJourney } from "../support/consoleRows.ts"
import { createTenant, type TestTenant } from "../support/platform.ts"

// The journeys list's counts come from counter rows that triggers on journey_runs keep (migration 043); counting the
// runs themselves is the rule they stand for. Differential: any mix of inserts, upserts, state moves and deletes, from
// two connections (two slots) and in concurrent transactions, leaves the counter sums equal to the grouped count.

const STATES = ["active", "waiting", "completed", "stopped", "failed"] as const
type State = typeof STATES[number]

// Two connections: two backends, so (almost always) two slots of the same journeys.
const a = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} })
const b = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} })
let tenant: TestTenant
let journeys: Array<string>
let contact: string

beforeAll(async () => {
  tenant = await createTenant("runcounts")
  const s = { tenant_id: tenant.tenant_id }
  journeys = [await insertJourney(a, s), await insertJourney(a, s), await insertJourney(a, s)]
  contact = await insertContact(a, s)
})
afterAll(async () => {
  await a.end()
  await b.end()
})

const ended = (state: State) => ["completed", "stopped", "failed"].includes(state)

const row = (id: string, journey: string, state: State) => ({
  id, tenant_id: tenant.tenant_id, sandbox: false, journey_id: journey, version: 1, contact_id: contact,
  // Every run its own scope: the one-live-run-per-contact index is not what this test is about.
  scope: `run:${id}`, state, wake_at: state === "waiting" ? new Date(Date.now() + 86_400_000) : null,
  trigger: a.json({}), started_at: new Date(), ended_at: ended(state) ? new Date() : null, updated_at: new Date()
})

type Op =
  | { readonly kind: "insert"; readonly runs: ReadonlyArray<{ journey: number; state: State }> }
  | { readonly kind: "upsert"; readonly runs: ReadonlyArray<{ pick: number; journey: number; state: State; fresh: boolean }> }
  | { readonly kind: "move"; readonly picks: ReadonlyArray<number>; readonly state: State }
  | { readonly kind: "touch"; readonly picks: ReadonlyArray<number> }
  | { readonly kind: "delete"; readonly picks: ReadonlyArray<number> }

const state = fc.constantFrom(...STATES)
const journey = fc.nat({ max: 2 })
const picks = fc.array(fc.nat(), { minLength: 1, maxLength: 6 })
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("insert" as const), runs: fc.array(fc.record({ journey, state }), { minLength: 1, maxLength: 6 }) }),
  fc.record({
    kind: fc.constant("upsert" as const),
    runs: fc.array(fc.record({ pick: fc.nat(), journey, state, fresh: fc.boolean() }), { minLength: 1, maxLength: 6 })
  }),
  fc.record({ kind: fc.constant("move" as const), picks, state }),
  fc.record({ kind: fc.constant("touch" as const), picks }),
  fc.record({ kind: fc.constant("delete" as const), picks })
)

/** Applies one operation in one statement through `sql`; `ids` are the runs that exist. */
const apply = async (sql: postgres.Sql | postgres.TransactionSql, o: Op, ids: Array<string>) => {
  const chosen = (ps: ReadonlyArray<number>) => ids.length === 0 ? [] : [...new Set(ps.map((p) => ids[p % ids.length]!))]
  switch (o.kind) {
    case "insert": {
      const rows = o.runs.map((r) => row(randomUUID(), journeys[r.journey]!, r.state))
      await sql`INSERT INTO journey_runs ${sql(rows)}`
      ids.push(...rows.map((r) => r.id))
      return
    }
    case "upsert": {
      // The journey actor's write: new runs inserted, known ones updated, in one statement.
      const byId = new Map<string, ReturnType<typeof row>>()
      for (const r of o.runs) {
        const id = r.fresh || ids.length === 0 ? randomUUID() : ids[r.pick % ids.length]!
        byId.set(id, row(id, journeys[r.journey]!, r.state))
      }
      const rows = [...byId.values()]
      await sql`INSERT INTO journey_runs ${sql(rows)}
        ON CONFLICT (id) DO UPDATE SET state = excluded.state, wake_at = excluded.wake_at, ended_at = excluded.ended_at`
      for (const r of rows) if (!ids.includes(r.id)) ids.push(r.id)
      return
    }
    case "move": {
      const move = chosen(o.picks)
      await sql`UPDATE journey_runs SET state = ${o.state}, wake_at = ${o.state === "waiting" ? new Date(Date.now() + 86_400_000) : null},
        ended_at = ${ended(o.state) ? new Date() : null} WHERE id = ANY(${move}::uuid[])`
      return
    }
    case "touch":
      // An update that keeps the state (the timer sweep's): counts nothing.
      await sql`UPDATE journey_runs SET wake_published = wake_published + 1 WHERE id = ANY(${chosen(o.picks)}::uuid[])`
      return
    case "delete": {
      const gone = chosen(o.picks)
      await sql`DELETE FROM journey_runs WHERE id = ANY(${gone}::uuid[])`
      ids.splice(0, ids.length, ...ids.filter((id) => !gone.includes(id)))
      return
    }
  }
}

const counted = async () => {
  const rows = await a`
    SELECT journey_id, sum(entered)::int AS entered, sum(live)::int AS live, sum(completed)::int AS completed,
      sum(stopped)::int AS stopped, sum(failed)::int AS failed
    FROM journey_run_counts WHERE journey_id = ANY(${journeys}::uuid[]) GROUP BY journey_id ORDER BY journey_id`
  return rows.map((r) => ({ ...r })).filter((r) => r.entered !== 0)
}
const truth = async () => {
  const rows = await a`
    SELECT journey_id, count(*)::int AS entered, count(*) FILTER (WHERE state IN ('active', 'waiting'))::int AS live,
      count(*) FILTER (WHERE state = 'completed')::int AS completed, count(*) FILTER (WHERE state = 'stopped')::int AS stopped,
      count(*) FILTER (WHERE state = 'failed')::int AS failed
    FROM journey_runs WHERE journey_id = ANY(${journeys}::uuid[]) GROUP BY journey_id ORDER BY journey_id`
  return rows.map((r) => ({ ...r }))
}

describe("journey run counters (migration 043)", () => {
  it("sum to the grouped count of the runs after any inserts, upserts, moves and deletes from two connections", async () => {
    const ids: Array<string> = []
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(op, fc.boolean()), { minLength: 1, maxLength: 12 }), async (ops) => {
        for (const [o, second] of ops) await apply(second ? b : a, o, ids)
        expect(await counted()).toEqual(await truth())
      }),
      { numRuns: 40 }
    )
  })

  it("stay exact when two transactions write runs of the same journeys at once, one of them rolled back", async () => {
    const ids: Array<string> = []
    await apply(a, { kind: "insert", runs: STATES.map((s, i) => ({ journey: i % 3, state: s })) }, ids)
    const mine = [...ids]
    const theirs = [...ids]
    await Promise.all([
      a.begin(async (tx) => {
        await apply(tx, { kind: "upsert", runs: [0, 1, 2, 3].map((i) => ({ pick: i, journey: i % 3, state: "completed" as const, fresh: i % 2 === 0 })) }, mine)
        await apply(tx, { kind: "move", picks: [0, 2], state: "failed" }, mine)
      }),
      b.begin(async (tx) => {
        await apply(tx, { kind: "insert", runs: [0, 1, 2].map((j) => ({ journey: j, state: "waiting" as const })) }, theirs)
        await apply(tx, { kind: "delete", picks: [1] }, theirs)
      }),
      b.begin(async (tx) => {
        await apply(tx, { kind: "insert", runs: [{ journey: 0, state: "stopped" }] }, [])
        throw new Error("rolled back")
      }).catch(() => undefined)
    ])
    expect(await counted()).toEqual(await truth())
  })
})
