import { Effect } from "effect"
import { type Database, withTenant, type Tx } from "../../core/db/Database.ts"
import { ValidationFailed } from "../../schemas/errors.ts"
import { callerScope } from "../http/handlerContext.ts"

// What the account configuration routes (hotels, keys, telephony integrations) share at the HTTP edge.

/**
 * `f` in one transaction confined to the caller's account by row-level security (these objects belong to the account,
 * not to a mode: the key's mode is not a filter here).
 */
export const inAccount = (db: typeof Database.Service) => <A>(f: (tx: Tx, tenantId: string) => Promise<A>) =>
  Effect.flatMap(callerScope, ({ tenant_id }) => db.query((sql) => withTenant(sql, tenant_id, (tx) => f(tx, tenant_id))))

/** A path id that is no UUID: 400 naming the parameter (a UUID of nothing in this account is 404). */
export const malformedId = (parameter: string) =>
  ValidationFailed.of(`Invalid request: ${parameter} must be a UUID`, { [parameter]: ["must be a UUID"] })
