import { actAsTenant, runTransaction, type Sql, type Tx } from "../db/Database.ts"
import type { EraseAction, PrivacyStore, Subject } from "./store.ts"
import { PrivacyStores } from "./stores/registry.ts"

export interface StoreErased {
  readonly store: string
  readonly action: EraseAction
  readonly count: number
}

/** `f` in one transaction of the subject's tenant (row-level security), retried on a serialization failure or deadlock. */
export const inTenantTransaction = <A>(sql: Sql, subject: Subject, f: (tx: Tx) => Promise<A>): Promise<A> =>
  runTransaction(sql, async (tx) => {
    await actAsTenant(tx, subject.scope.tenant_id)
    return f(tx)
  })

/** One batch of one store, in its own transaction: the rows it removed or anonymised (fewer than `limit`: done). */
export const eraseBatch = (sql: Sql, store: PrivacyStore, subject: Subject, limit: number): Promise<number> =>
  inTenantTransaction(sql, subject, (tx) => store.erase(tx, subject, limit))

/** One store to the end, batch after batch. */
export const eraseStore = async (sql: Sql, store: PrivacyStore, subject: Subject, limit: number): Promise<StoreErased> => {
  let count = 0
  for (;;) {
    const n = await eraseBatch(sql, store, subject, limit)
    count += n
    if (n < limit) return { store: store.store, action: store.action, count }
  }
}

/**
 * Every store in the registry's order, each to the end before the next (the order keeps foreign keys and the keys
 * later stores find the subject by). Resumable: after a crash, running it again repeats at most one batch of one store,
 * and finds nothing in the stores already done.
 */
export const eraseSubject = async (
  sql: Sql, subject: Subject, limit: number, stores: ReadonlyArray<PrivacyStore> = PrivacyStores
): Promise<ReadonlyArray<StoreErased>> => {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError("limit must be a positive integer")
  const results: Array<StoreErased> = []
  for (const store of stores) results.push(await eraseStore(sql, store, subject, limit))
  return results
}
