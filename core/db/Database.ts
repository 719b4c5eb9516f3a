import { Context, Effect, Layer } from "effect"
import postgres from "postgres"
import { AppConfig } from "../config/AppConfig.ts"

export type Sql = postgres.Sql
export type Tx = postgres.TransactionSql

export interface DatabaseShape {
  readonly sql: Sql
  /** Runs `f` in one transaction; serialization failures and deadlocks are retried, other failures are defects. */
  readonly transaction: <A>(f: (tx: Tx) => Promise<A>) => Effect.Effect<A>
  readonly query: <A>(f: (sql: Sql) => Promise<A>) => Effect.Effect<A>
}

// Serialization failure, deadlock, and a unique violation from a concurrent insert: re-running the transaction
// sees the winner's row and converges.
const RETRYABLE = new Set(["40001", "40P01", "23505"])

export const isRetryable = (e: unknown): boolean =>
  typeof e === "object" && e !== null && RETRYABLE.has((e as { code?: string }).code ?? "")

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
    // among them) for long: the server ends such a session and a new owner can take over.
    connection: { idle_in_transaction_session_timeout: 5_000 }
  })

export class Database extends Context.Service<Database, DatabaseShape>()("app/db/Database") {
  static readonly make = (url: string, max?: number) =>
    Effect.acquireRelease(
      Effect.sync(() => connect(url, max)),
      (sql) => Effect.promise(() => sql.end({ timeout: 5 }))
    ).pipe(Effect.map((sql) =>
      Database.of({
        sql,
        transaction: (f) => Effect.promise(() => runTransaction(sql, f)),
        query: (f) => Effect.promise(() => f(sql))
      })
    ))

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

/** A read (or write) confined to one tenant by row-level security, in its own transaction. */
export const withTenant = <A>(sql: Sql, tenantId: string, f: (tx: Tx) => Promise<A>): Promise<A> =>
  sql.begin(async (tx) => {
    await actAsTenant(tx, tenantId)
    return f(tx)
  }) as Promise<A>

/** A jsonb parameter (postgres.js would otherwise send a JS string as a JSON string literal). */
export const jsonb = (sql: Sql | Tx, value: unknown) =>
  value === null || value === undefined ? null : sql.json(value as postgres.JSONValue)

/** Failures worth retrying forever (the database or network is away) rather than counting toward dead-lettering. */
export const isInfrastructureFailure = (e: unknown): boolean => {
  const code = String((e as { code?: unknown })?.code ?? "")
  if (/^(08|53|57|58)/.test(code)) return true // connection, resources, operator intervention, system
  return ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "CONNECTION_CLOSED", "CONNECTION_ENDED",
    "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ENOTFOUND"].includes(code)
}
