import { Data } from "effect"

/**
 * The one place that classifies what postgres.js rejects with, by SQLSTATE or socket error code (never by message
 * text): the database is away (retried until it is back), a statement lost a race (a re-run converges), or anything
 * else (a bug or bad data).
 */

// Serialization failure, deadlock, and a unique violation from a concurrent insert: re-running the transaction
// sees the winner's row and converges.
const RETRYABLE = new Set(["40001", "40P01", "23505"])

const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "CONNECTION_CLOSED", "CONNECTION_ENDED",
  "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ENOTFOUND"])

const codeOf = (e: unknown): string => String((e as { code?: unknown })?.code ?? "")

/** A statement a re-run of its transaction converges on (serialization failure, deadlock, unique-key race). */
export const isRetryable = (e: unknown): boolean =>
  typeof e === "object" && e !== null && RETRYABLE.has(codeOf(e))

/** Failures worth retrying forever (the database or network is away) rather than counting toward dead-lettering. */
export const isInfrastructureFailure = (e: unknown): boolean => {
  const code = codeOf(e)
  if (/^(08|53|57|58)/.test(code)) return true // connection, resources, operator intervention, system
  return SOCKET_CODES.has(code)
}

/** The database away, as a failure says it or as the failure it wraps does (a library's error around postgres.js's). */
export const isDatabaseAway = (e: unknown): boolean =>
  isInfrastructureFailure(e) || isInfrastructureFailure((e as { cause?: unknown } | null | undefined)?.cause)

/**
 * The data of a statement is at fault, whatever the state of the database: a data exception (class 22: invalid text
 * for a type, a number out of range, NUL or an invalid byte sequence, an unsupported Unicode escape), a not-null or
 * check violation (23502, 23514), or a program limit a value hits (class 54: an index row or a statement too large).
 * Re-running the same statement fails the same way, so it is never retried.
 */
export const isDataFailureCode = (code: string): boolean => /^(22|54)/.test(code) || code === "23502" || code === "23514"

/** `lock_timeout` ran out waiting for a row lock (55P03): the lock holder is busy or frozen; try again later. */
export const isLockTimeout = (e: unknown): boolean => codeOf(e) === "55P03"

/** The database, or the network to it, is away: retried until it is back; never the request's fault (503, not 500). */
export class DatabaseUnavailable extends Data.TaggedError("DatabaseUnavailable")<{
  readonly code: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `database unavailable (${this.code || "no code"}): ${describe(this.cause)}`
  }
}

/**
 * A statement failed. `retryable`: a serialization failure, deadlock or unique-key race that a re-run converges on;
 * otherwise a bug or bad data, counted toward dead-lettering.
 */
export class DatabaseError extends Data.TaggedError("DatabaseError")<{
  readonly code: string
  readonly retryable: boolean
  readonly cause: unknown
}> {
  override get message(): string {
    return describe(this.cause)
  }
}

const describe = (cause: unknown): string => (cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause))

export type DatabaseFailure = DatabaseUnavailable | DatabaseError

/** Classifies what postgres.js rejected with. An already classified failure is returned as it is. */
export const databaseFailure = (e: unknown): DatabaseFailure => {
  if (isDatabaseFailure(e)) return e
  const code = codeOf(e)
  return isInfrastructureFailure(e)
    ? new DatabaseUnavailable({ code, cause: e })
    : new DatabaseError({ code, retryable: isRetryable(e), cause: e })
}

export const isDatabaseFailure = (u: unknown): u is DatabaseFailure => u instanceof DatabaseUnavailable || u instanceof DatabaseError
