import { Data } from "effect"
import { isInfrastructureFailure, isRetryable } from "./Database.ts"

/** The database, or the network to it, is away: retried until it is back; never the request's fault (503, not 500). */
export class DatabaseUnavailable extends Data.TaggedError("DatabaseUnavailable")<{
  readonly code: string
  readonly cause: unknown
}> {}

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
    return this.cause instanceof Error ? `${this.cause.name}: ${this.cause.message}` : String(this.cause)
  }
}

export type DatabaseFailure = DatabaseUnavailable | DatabaseError

/** Classifies what postgres.js rejected with, by SQLSTATE or socket error code (never by message text). */
export const databaseFailure = (e: unknown): DatabaseFailure => {
  const code = String((e as { code?: unknown })?.code ?? "")
  return isInfrastructureFailure(e)
    ? new DatabaseUnavailable({ code, cause: e })
    : new DatabaseError({ code, retryable: isRetryable(e), cause: e })
}

export const isDatabaseFailure = (u: unknown): u is DatabaseFailure => u instanceof DatabaseUnavailable || u instanceof DatabaseError
