import { Context, Effect, Layer } from "effect"
import postgres from "postgres"
import { AppConfig } from "../config/AppConfig.ts"
import { applicationNameOf, processId } from "../processIdentity.ts"
import { databaseFailure, type DatabaseFailure, isInfrastructureFailure, isRetryable } from "./DatabaseFailure.ts"
import { migrate } from "./migrate.ts"

export type Sql = postgres.Sql
export type Tx = postgres.TransactionSql

// The classification lives in DatabaseFailure.ts; re-exported for the modules that import it from here.
export { isInfrastructureFailure, isRetryable }

/**
 * The service boundary of PostgreSQL. `attempt` / `attemptTransaction` fail with a typed `DatabaseFailure`
 * (`DatabaseUnavailable`: the database is away; `DatabaseError`: the statement failed) for callers that act on it.
 * `query` / `transaction` are for callers that cannot (an HTTP handler whose endpoint declares no such error): the same
 * typed failure, as a defect, so the router's error shape still tells `DatabaseUnavailable` (503 + Retry-After) from
 * anything else (500).
 */
export interface DatabaseShape {
  readonly sql: Sql
  /** `f` on the pool; a rejection is classified into a `DatabaseFailure`. */
  readonly attempt: <A>(f: (sql: Sql) => Promise<A>) => Effect.Effect<A, DatabaseFailure>
  /** `f` in one transaction (serialization failures and deadlocks retried, see `runTransaction`); typed failure. */
  readonly attemptTransaction: <A>(f: (tx: Tx) => Promise<A>) => Effect.Effect<A, DatabaseFailure>
  /** `attempt`, its failure a defect (the typed `DatabaseFailure`, for the error shape at the edge). */
  readonly query: <A>(f: (sql: Sql) => Promise<A>) => Effect.Effect<A>
  /** `attemptTransaction`, its failure a defect (the typed `DatabaseFailure`). */
  readonly transaction: <A>(f: (tx: Tx) => Promise<A>) => Effect.Effect<A>
}

export const runTransaction = async <A>(sql: Sql, f: (tx: Tx) => Promise<A>): Promise<A> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await sql.begin((tx) => f(tx))) as A
    } catch (e) {
      if (!isRetryable(e) || attempt >= 8) throw e
      await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt))
    }
  }
}

export const connect = (url: string, max = 20): Sql =>
  postgres(url, {
    max, onnotice: () => {}, idle_timeout: 30, connect_timeout: 5,
    // A process paused or cut off in the middle of a transaction must not hold its locks (the partition lease row
    // among them) for long: the server ends such a session and a new owner can take over. Sessions carry the
    // process's name, so a new owner can also end those a pause left mid-statement (which that timeout never ends).
    // No JIT: every statement here is a short one, and a plan costed high on stale statistics was compiled on every
    // run (the reservation wave's B2B attribution at 700,000 reservations: 620 ms of LLVM in a 665 ms statement).
    connection: { idle_in_transaction_session_timeout: 5_000, application_name: applicationNameOf(processId), jit: "off" }
  })

/** Creates the database if missing and applies pending migrations; returns the versions applied. */
export const migrateDatabase = (url: string): Effect.Effect<ReadonlyArray<string>, DatabaseFailure> =>
  Effect.tryPromise({ try: () => migrate(url), catch: databaseFailure })

export class Database extends Context.Service<Database, DatabaseShape>()("app/db/Database") {
  static readonly make = (url: string, max?: number) =>
    Effect.acquireRelease(
      Effect.sync(() => connect(url, max)),
      (sql) => Effect.promise(() => sql.end({ timeout: 5 }))
    ).pipe(Effect.map((sql) => {
      const attempt = <A>(f: (sql: Sql) => Promise<A>) => Effect.tryPromise({ try: () => f(sql), catch: databaseFailure })
      const attemptTransaction = <A>(f: (tx: Tx) => Promise<A>) =>
        Effect.tryPromise({ try: () => runTransaction(sql, f), catch: databaseFailure })
      return Database.of({
        sql,
        attempt,
        attemptTransaction,
        query: (f) => Effect.orDie(attempt(f)),
        transaction: (f) => Effect.orDie(attemptTransaction(f))
      })
    }))

  static readonly layer = Layer.effect(
    Database,
    Effect.gen(function*() {
      const config = yield* AppConfig
      return yield* Database.make(config.databaseUrl, config.dbPoolSize)
    })
  )
}

/**
 * Makes the rest of this transaction run as the restricted role `gep_app` for one tenant: row-level security then
 * hides every other tenant's rows (defence in depth behind the tenant filters every query already has).
 */
export const actAsTenant = (tx: Tx, tenantId: string) =>
  tx`SELECT set_config('role', 'gep_app', true), set_config('app.tenant_id', ${tenantId}, true)`

/**
 * A read (or write) confined to one tenant by row-level security, in its own transaction. The tenant is set in the
 * same round trip as `f`'s first statements: a transaction's statements run in the order they were sent on its one
 * connection, so they run as the tenant, and if setting it failed they fail too (the transaction is aborted).
 * `execute()` sends it now: a postgres.js query is sent when first awaited, and `f` awaits its own statements before
 * `Promise.all` would await this one.
 */
export const withTenant = <A>(sql: Sql, tenantId: string, f: (tx: Tx) => Promise<A>): Promise<A> =>
  sql.begin(async (tx) => {
    const acting = actAsTenant(tx, tenantId).execute()
    const [, result] = await Promise.all([acting, f(tx)])
    return result
  }) as Promise<A>

/** A jsonb parameter (postgres.js would otherwise send a JS string as a JSON string literal). */
export const jsonb = (sql: Sql | Tx, value: unknown) =>
  value === null || value === undefined ? null : sql.json(value as postgres.JSONValue)

/**
 * Options for a fixed-text statement sent with `unsafe`: prepared, as tagged statements are. postgres.js sends an
 * `unsafe` statement unnamed unless told: parsed and planned again on every run and, having parameters, described
 * first, which holds back every statement queued behind it on the connection for a round trip (a group's pipelined
 * statements went out one write each). Only for text that is the same on every call: each distinct text stays
 * prepared on every connection that ran it.
 */
export const PREPARED = { prepare: true } as const

/**
 * A set-based statement of one tenant scope: `$1` is the tenant, `$2` the sandbox flag and `$3` the rows as one jsonb
 * array (read with `jsonb_to_recordset`), so the statement's text, and its prepared plan, is the same for any number
 * of rows.
 */
export const withRecords = (tx: Tx, scope: { readonly tenant_id: string; readonly sandbox: boolean }, text: string, records: ReadonlyArray<unknown>) =>
  tx.unsafe(text, [scope.tenant_id, scope.sandbox, jsonb(tx, records) as never], PREPARED)
