import { Effect, Layer } from "effect"
import { isUuid } from "../../schemas/common.ts"
import { Conflict, NotFound } from "../../schemas/errors.ts"
import { StaffEmail, StaffRoles, type StaffRole } from "../../schemas/staff.ts"
import { StaffAccounts, publicStaff } from "../staff/StaffAccounts.ts"
import { decode, need, refused, scopeOf } from "./channelFlags.ts"

export const STAFF_USAGE = `  staff add --tenant ID --email E --role viewer|operator|admin
                                               -> the staff member (as POST /api/v1/staff); they sign in at /console with a code emailed to E
  staff list --tenant ID                       -> {"staff":[...]} the active staff, newest first
  staff remove --tenant ID --id STAFF_ID       -> the removed member; their sessions end at once`

export interface StaffFlags {
  readonly tenant?: string | undefined
  readonly email?: string | undefined
  readonly role?: string | undefined
  readonly id?: string | undefined
}

/** `gep staff ...`: the account's staff, through the same service as the API (the same checks and answers). */
export const staffCommand = (args: ReadonlyArray<string>, flags: StaffFlags) =>
  Effect.gen(function*() {
    const accounts = yield* StaffAccounts
    const { tenant_id } = yield* scopeOf({ tenant: flags.tenant })
    const known = <E>(e: E | Conflict | NotFound) => (e instanceof Conflict || e instanceof NotFound ? refused(e.error.message) : e as E)
    switch (args[0] ?? "") {
      case "add": {
        const email = yield* decode(StaffEmail, yield* need("email", flags.email)).pipe(Effect.mapError((e) => refused(`--email ${e.message}`)))
        const role = StaffRoles.find((r) => r === flags.role)
        if (role === undefined) return yield* Effect.fail(refused(`--role must be one of: ${StaffRoles.join(", ")}`))
        return publicStaff(yield* accounts.add(tenant_id, email, role as StaffRole).pipe(Effect.mapError(known)))
      }
      case "list":
        return yield* accounts.list(tenant_id, { limit: 100, after: undefined })
      case "remove": {
        const id = yield* need("id", flags.id)
        if (!isUuid(id)) return yield* Effect.fail(refused("--id must be a staff_id (a UUID)"))
        return publicStaff(yield* accounts.remove(tenant_id, id.toLowerCase()).pipe(Effect.mapError(known)))
      }
      default:
        return yield* Effect.fail(refused(`unknown command: staff ${args[0] ?? ""} (add, list, remove)`))
    }
  }).pipe(Effect.provide(StaffAccounts.layer.pipe(Layer.orDie)))
