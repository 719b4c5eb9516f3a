import type postgres from "postgres"
import { actAsTenant, type Sql } from "./Database.ts"

/** A statement built and not yet sent (postgres.js sends a query when it is first awaited or executed). */
export type Statement = postgres.PendingQuery<postgres.Row[]>

/**
 * A read of one tenant in one round trip: `BEGIN READ ONLY`, the tenant setting (row-level security), the statements
 * `f` builds and `COMMIT` are sent together, in that order, on one reserved connection, where `withTenant` takes three
 * (the begin, the statements, the commit: each waits for the one before). On a loaded machine every round trip is
 * a wake-up of both processes, and this is the whole cost of a small read.
 *
 * `f` returns its statements rather than running them, so none can be sent after the commit, outside the tenant: a
 * read whose statements depend on each other's rows is one statement (a join or a subquery), or uses `withTenant`.
 * A failing statement aborts the transaction, so the ones after it fail too and `COMMIT` ends it as a rollback; the
 * connection goes back to the pool idle either way, once every answer is in.
 */
export const readAsTenant = async <const S extends ReadonlyArray<Statement>>(
  sql: Sql, tenantId: string, f: (tx: postgres.ReservedSql) => S
): Promise<{ -readonly [K in keyof S]: Awaited<S[K]> }> => {
  const tx = await sql.reserve()
  try {
    // Built before anything is sent: `f` throwing then leaves no transaction open on a connection going back to the pool.
    const built = f(tx)
    const sent = [tx`BEGIN READ ONLY`.execute(), actAsTenant(tx as unknown as postgres.TransactionSql, tenantId).execute()]
    const statements = built.map((s) => s.execute())
    const settled = await Promise.allSettled([...sent, ...statements, tx`COMMIT`.execute()])
    const failed = settled.find((s) => s.status === "rejected")
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason
    return settled.slice(sent.length, sent.length + statements.length).map((s) => (s as PromiseFulfilledResult<unknown>).value) as never
  } finally {
    tx.release()
  }
}
