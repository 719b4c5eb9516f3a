import { describe, expect, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { FAMILY_HALVES } from "./halves.ts"

// npm test runs one half of the families' fault tests a day (halves.ts, read by vitest.chaos.config.ts): a name there that no longer
// names a file would leave that half lighter and the renamed test running every day, unnoticed.
describe("the fault tests' halves", () => {
  it("name files that exist, each in one half only", () => {
    const all = FAMILY_HALVES.flat()
    expect(all.filter((f) => !existsSync(fileURLToPath(new URL(`../../${f}`, import.meta.url))))).toEqual([])
    expect(new Set(all).size).toBe(all.length)
  })
})
