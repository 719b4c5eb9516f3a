import { DatabaseError, isDataFailureCode } from "../../core/db/DatabaseFailure.ts"

/**
 * Why an envelope fails because of its own data, or undefined when it does not: a value the database refuses (see
 * isDataFailureCode) or a RangeError (a payload nested too deep to decode, a number or date out of range). Such a
 * failure repeats identically on every attempt, so the envelope is dead-lettered at once and its caller answered
 * with a refusal, not with a 503 that invites the same request again. The reason is what the caller is told.
 */
export const dataFault = (error: unknown): string | undefined =>
  error instanceof DatabaseError && isDataFailureCode(error.code)
    ? `a value cannot be stored (SQLSTATE ${error.code})`
    : error instanceof RangeError
    ? "a value is out of range or nested too deep to process"
    : undefined
