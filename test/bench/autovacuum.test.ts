import { describe, expect, it } from "vitest"
import { dueWork } from "./autovacuum.ts"

// The bench's autovacuum stand-in must decide as PostgreSQL's autovacuum does with its default settings
// (autovacuum_analyze_threshold 50, _scale_factor 0.1; vacuum 50 + 0.2; insert 1,000 + 0.2), or the bench's plans
// would differ from production's.
const table = (over: Partial<Parameters<typeof dueWork>[0]>) => ({
  table: "public.t", reltuples: 0, n_mod_since_analyze: 0, n_dead_tup: 0, n_ins_since_vacuum: 0, ...over
})

describe("autovacuum stand-in", () => {
  it("analyses a table past 50 rows changed plus a tenth of it", () => {
    expect(dueWork(table({ reltuples: 10_000, n_mod_since_analyze: 1_050 })).analyse).toBe(false)
    expect(dueWork(table({ reltuples: 10_000, n_mod_since_analyze: 1_051 })).analyse).toBe(true)
  })

  it("counts a never-analysed table (reltuples -1) as empty", () => {
    expect(dueWork(table({ reltuples: -1, n_mod_since_analyze: 51 })).analyse).toBe(true)
    expect(dueWork(table({ reltuples: -1, n_mod_since_analyze: 50 })).analyse).toBe(false)
  })

  it("vacuums past 50 dead rows plus a fifth, or 1,000 inserts plus a fifth", () => {
    expect(dueWork(table({ reltuples: 1_000, n_dead_tup: 250 })).vacuum).toBe(false)
    expect(dueWork(table({ reltuples: 1_000, n_dead_tup: 251 })).vacuum).toBe(true)
    expect(dueWork(table({ reltuples: 1_000, n_ins_since_vacuum: 1_200 })).vacuum).toBe(false)
    expect(dueWork(table({ reltuples: 1_000, n_ins_since_vacuum: 1_201 })).vacuum).toBe(true)
  })
})
