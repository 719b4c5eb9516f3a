import { describe, expect, it } from "@effect/vitest"
import { dataFault } from "../../../actors/runtime/dataFault.ts"
import { DatabaseError, DatabaseUnavailable } from "../../../core/db/DatabaseFailure.ts"

const pgError = (code: string) => Object.assign(new Error(`postgres said ${code}`), { code })

describe("data faults (dead-lettered at once, not retried)", () => {
  it("are the database's data exceptions and program limits, and RangeErrors", () => {
    for (const code of ["22P05", "22021", "22P02", "22003", "22001", "23502", "23514", "54000"]) {
      expect(dataFault(new DatabaseError({ code, retryable: false, cause: pgError(code) }))).toBe(`a value cannot be stored (SQLSTATE ${code})`)
    }
    expect(dataFault(new RangeError("Maximum call stack size exceeded"))).toBeDefined()
  })

  it("are not conflicts, unavailability or other failures", () => {
    for (const code of ["40001", "40P01", "23505", "23503", "42P01", "XX000"]) {
      expect(dataFault(new DatabaseError({ code, retryable: false, cause: pgError(code) }))).toBeUndefined()
    }
    expect(dataFault(new DatabaseUnavailable({ code: "08006", cause: pgError("08006") }))).toBeUndefined()
    expect(dataFault(new TypeError("x is undefined"))).toBeUndefined()
  })
})
