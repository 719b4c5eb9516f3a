import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import postgres from "postgres"
import { inject } from "vitest"

/**
 * patches/postgres+3.4.9.patch (ADR 0039): a prepared statement's signature (types and text) is one string reused per
 * text and types, so a long hot statement (a contact's timeline: 20 KB of SQL) is not copied and hashed on every
 * query. What it must keep: one prepared statement per text and types, each answering as before.
 */
const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} })
afterAll(() => sql.end())

describe("prepared statements' signatures", () => {
  it("are reused per text by the installed postgres.js", () => {
    const root = createRequire(import.meta.url).resolve("postgres").replace(/cjs\/src\/index\.js$/, "")
    for (const build of ["src/connection.js", "cjs/src/connection.js"]) {
      const source = readFileSync(`${root}${build}`, "utf8")
      expect(source, build).toContain("q.signature = q.prepare && signatureOf(types, string)")
    }
  })

  it("keep one statement per text and parameter types, long or short", async () => {
    const long = `SELECT $1::int AS x /* ${"x".repeat(20_000)} */`
    for (let i = 0; i < 3; i++) {
      expect((await sql.unsafe(long, [41 + i], { prepare: true }))[0]!.x).toBe(41 + i)
      // The same text with parameters of three types (postgres.js infers them from the values): three statements.
      expect((await sql.unsafe("SELECT pg_typeof($1)::text AS t", [i % 2 === 0], { prepare: true }))[0]!.t).toBe("boolean")
      expect((await sql.unsafe("SELECT pg_typeof($1)::text AS t", [new Date(i)], { prepare: true }))[0]!.t).toBe("timestamp with time zone")
      expect((await sql.unsafe("SELECT pg_typeof($1)::text AS t", [BigInt(i)] as never, { prepare: true }))[0]!.t).toBe("bigint")
    }
    const [row] = await sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE 'SELECT pg_typeof($1)%'`
    expect(row!.n).toBe(3)
  })
})
