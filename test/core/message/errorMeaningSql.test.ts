import { afterAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import postgres from "postgres"
import { inject } from "vitest"
import { errorMeaningSql } from "../../../core/message/errorMeaningSql.ts"
import { ERROR_CATALOGUES, errorMeaning } from "../../../core/message/errorMeanings.ts"

// Two implementations of one rule: the TypeScript one answers the console's deliveries, the SQL one a contact's
// timeline (written whole by PostgreSQL). They must give the same sentence for every channel, code and reply.

const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} })
afterAll(() => sql.end())

const STATEMENT = `SELECT ${errorMeaningSql("$1::text", "$2::text", "$3::text")} AS meaning`
const inSql = async (channel: string, code: string | null, message: string | null) =>
  (await sql.unsafe(STATEMENT, [channel, code, message] as never, { prepare: true }))[0]!.meaning as string | null

const known = Object.values(ERROR_CATALOGUES).flatMap((table) => Object.keys(table))
// Text around an enhanced status: word characters of both alphabets (ASCII and not), digits, spaces and punctuation.
const around = fc.string({ unit: fc.constantFrom("a", "Z", "_", "é", "ß", "1", "9", " ", ".", "-", "<", ":", "\n"), maxLength: 4 })
const status = fc.tuple(fc.constantFrom("2", "4", "5", "3"), fc.nat(1200), fc.nat(1200)).map(([c, s, d]) => `${c}.${s}.${d}`)
const reply = fc.oneof(
  fc.constant(null),
  fc.tuple(around, fc.constantFrom(...known, ""), around, status, around).map((parts) => parts.join("")),
  fc.string({ unit: "grapheme", maxLength: 40 })
)
const code = fc.oneof(fc.constant(null), fc.constantFrom(...known), status, fc.string({ maxLength: 8 }), fc.constantFrom("constructor", "__proto__", "toString"))
const channel = fc.constantFrom("email", "whatsapp", "sms", "")

describe("errorMeaningSql", () => {
  it("gives the sentence errorMeaning gives, for generated channels, codes and replies", async () => {
    await fc.assert(
      fc.asyncProperty(channel, code, reply, async (ch, c, m) => {
        expect(await inSql(ch, c, m), JSON.stringify([ch, c, m])).toBe(errorMeaning(ch, c, m))
      }),
      { numRuns: 600 }
    )
  })

  it("agrees on every catalogue entry and on the boundaries of an enhanced status", async () => {
    const cases: Array<[string, string | null, string | null]> = [
      ...known.flatMap((k) => [["email", k, null], ["whatsapp", k, null], ["email", "550", `550 ${k} x`]] as Array<[string, string, string | null]>),
      ["email", "550", "550 é5.1.1 x"], ["email", "550", "550 a5.1.1"], ["email", "550", "5.1.1234"], ["email", "550", "5.1.1_"],
      ["email", "550", "5.1.1é"], ["email", "550", "15.1.1"], ["email", "550", "x 5.1.1.2"], ["email", "4.7.1", null], ["email", null, null]
    ]
    for (const [ch, c, m] of cases) expect(await inSql(ch, c, m), JSON.stringify([ch, c, m])).toBe(errorMeaning(ch, c, m))
  })
})
