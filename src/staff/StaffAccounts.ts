import { Clock, Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { Database, type Tx } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { Conflict, NotFound } from "../../schemas/errors.ts"
import type { Staff, StaffRole } from "../../schemas/staff.ts"
import { exactTime } from "../http/cursor.ts"
import { inTenantOf, Refused } from "../http/inTenant.ts"
import { pageOf, type PageRequest } from "../http/paging.ts"

/** A staff member as stored, with what the sign-in needs besides the API's view. */
export interface StaffRow extends Staff {
  readonly tenant_id: string
}

const COLUMNS = `id, tenant_id, email, role, created_at, last_signed_in_at, ${exactTime("created_at")} AS cursor_at`

export const staffOf = (r: Record<string, unknown>): StaffRow => ({
  staff_id: r.id as string,
  tenant_id: r.tenant_id as string,
  email: r.email as string,
  role: r.role as StaffRole,
  created_at: (r.created_at as Date).toISOString(),
  last_signed_in_at: r.last_signed_in_at === null ? null : (r.last_signed_in_at as Date).toISOString()
})

/** The API's view of a member (the tenant is the caller's). */
export const publicStaff = ({ tenant_id: _t, ...staff }: StaffRow): Staff => staff

const notFound = (staffId: string) =>
  new Refused(NotFound.of(`No staff member with id ${JSON.stringify(staffId)} in this account`, { staff_id: ["not found"] }))

/** Ends every session and open sign-in code of a member: a removed member is signed out everywhere at once. */
const endSessions = (tx: Tx, staffId: string) => Promise.all([
  tx`DELETE FROM staff_sessions WHERE staff_id = ${staffId}`,
  tx`DELETE FROM staff_sign_in_codes WHERE staff_id = ${staffId}`
])

/**
 * The account's staff: added with a role, listed, their role changed, removed. Each call is confined to the caller's
 * tenant by row-level security; staff belong to the account, not to a mode (live and sandbox keys see the same).
 */
export class StaffAccounts extends Context.Service<StaffAccounts, {
  readonly add: (tenantId: string, email: string, role: StaffRole) => Effect.Effect<StaffRow, Conflict | DatabaseFailure>
  readonly list: (tenantId: string, page: PageRequest) => Effect.Effect<{ staff: Array<Staff>; next_cursor: string | null }, DatabaseFailure>
  readonly change: (tenantId: string, staffId: string, role: StaffRole) => Effect.Effect<StaffRow, NotFound | DatabaseFailure>
  /** Marks the member removed and ends their sessions at once; the row stays for the audit log. */
  readonly remove: (tenantId: string, staffId: string) => Effect.Effect<StaffRow, NotFound | DatabaseFailure>
}>()("app/staff/StaffAccounts") {
  static readonly layer = Layer.effect(StaffAccounts, Effect.gen(function*() {
    const db = yield* Database
    const inTenant = inTenantOf(db)
    const account = (tenantId: string) => ({ tenant_id: tenantId, sandbox: false })

    const add = Effect.fn("StaffAccounts.add")(function*(tenantId: string, email: string, role: StaffRole) {
      const now = new Date(yield* Clock.currentTimeMillis)
      const address = email.trim().toLowerCase()
      return yield* inTenant<StaffRow, Conflict>(account(tenantId), async (tx) => {
        const [row] = await tx.unsafe(`INSERT INTO staff_accounts (id, tenant_id, email, role, created_at) VALUES ($1, $2, $3, $4, $5)
          ON CONFLICT (tenant_id, email) WHERE removed_at IS NULL DO NOTHING RETURNING ${COLUMNS}`, [randomUUID(), tenantId, address, role, now])
        return row === undefined
          ? new Refused(Conflict.of("STAFF_EXISTS", "This address is already an active staff member of this account", { email: ["already staff"] }))
          : staffOf(row)
      })
    })

    const list = Effect.fn("StaffAccounts.list")(function*(tenantId: string, page: PageRequest) {
      const rows = yield* inTenant(account(tenantId), (tx) => page.after === undefined
        ? tx.unsafe(`SELECT ${COLUMNS} FROM staff_accounts WHERE tenant_id = $1 AND removed_at IS NULL
            ORDER BY created_at DESC, id DESC LIMIT $2`, [tenantId, page.limit + 1])
        : tx.unsafe(`SELECT ${COLUMNS} FROM staff_accounts WHERE tenant_id = $1 AND removed_at IS NULL
            AND (created_at, id) < ($3::text::timestamptz, $4::uuid) ORDER BY created_at DESC, id DESC LIMIT $2`,
          [tenantId, page.limit + 1, page.after.at, page.after.id]))
      const { shown, next_cursor } = pageOf(rows, page.limit, (r) => ({ at: r.cursor_at as string, id: r.id as string }))
      return { staff: shown.map((r) => publicStaff(staffOf(r))), next_cursor }
    })

    const change = Effect.fn("StaffAccounts.change")(function*(tenantId: string, staffId: string, role: StaffRole) {
      return yield* inTenant<StaffRow, NotFound>(account(tenantId), async (tx) => {
        // A session reads its member's role at every request: the change holds from the member's next call.
        const [row] = await tx.unsafe(`UPDATE staff_accounts SET role = $3 WHERE tenant_id = $1 AND id = $2 AND removed_at IS NULL
          RETURNING ${COLUMNS}`, [tenantId, staffId, role])
        return row === undefined ? notFound(staffId) : staffOf(row)
      })
    })

    const remove = Effect.fn("StaffAccounts.remove")(function*(tenantId: string, staffId: string) {
      const now = new Date(yield* Clock.currentTimeMillis)
      return yield* inTenant<StaffRow, NotFound>(account(tenantId), async (tx) => {
        const [row] = await tx.unsafe(`UPDATE staff_accounts SET removed_at = $3 WHERE tenant_id = $1 AND id = $2 AND removed_at IS NULL
          RETURNING ${COLUMNS}`, [tenantId, staffId, now])
        if (row === undefined) return notFound(staffId)
        await endSessions(tx, staffId)
        return staffOf(row)
      })
    })

    return StaffAccounts.of({ add, list, change, remove })
  }))
}
