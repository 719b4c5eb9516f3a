import { Effect } from "effect"
import { Database } from "../../core/db/Database.ts"
import { inTenantOf } from "../http/inTenant.ts"
import { readBroadcast } from "../broadcast/store.ts"
import { need, refused, scopeOf } from "./channelFlags.ts"

export const BROADCAST_USAGE = `  broadcast status --tenant ID [--test] --id B  -> the broadcast with its status, phase and counts (as GET /api/v1/broadcasts/{id})`

export interface BroadcastFlags {
  readonly tenant?: string | undefined
  readonly test?: boolean | undefined
  readonly id?: string | undefined
}

/** `gep broadcast status`: where a broadcast is, for an operator (the same read as the API's, confined to the tenant). */
export const broadcastCommand = (args: ReadonlyArray<string>, flags: BroadcastFlags) =>
  Effect.gen(function*() {
    if (args[0] !== "status") return yield* Effect.fail(refused(`unknown command: broadcast ${args[0] ?? ""} (status)`))
    const scope = yield* scopeOf(flags)
    const id = yield* need("id", flags.id)
    const found = yield* inTenantOf(yield* Database)(scope, (tx) => readBroadcast(tx, scope, id))
    if (found === undefined) return yield* Effect.fail(refused(`No broadcast with id ${JSON.stringify(id)}${scope.sandbox ? " in the sandbox" : ""}`))
    return found
  })
