import { Effect } from "effect"
import { type B2bCommand, B2bProtocol, type B2bRefused, type B2bResult } from "../../actors/b2b/protocol.ts"
import { Database, withTenant, type Tx } from "../../core/db/Database.ts"
import type { Principal } from "../../schemas/api.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered } from "../http/answers.ts"
import { summarise } from "../http/issues.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import type { Issues } from "./normalise.ts"

// What the B2B handlers share: the actor call with its refusals in the core error shape, hotel checks, reads.

/**
 * A refusal of the b2b actor as the edge answers it: a code of another account 409, the resource of the path missing
 * 404, anything else the request refers to 422.
 */
const refusal = (pathResource: boolean) => (e: B2bRefused) =>
  e.code === "CODE_TAKEN"
    ? Conflict.of(e.code, e.message, e.details)
    : e.code === "DEAL_NOT_FOUND" || (e.code === "ACCOUNT_NOT_FOUND" && pathResource)
    ? NotFound.of(e.message, e.details)
    : Unprocessable.of(e.code, e.message, e.details)

export const invalid = (details: Issues) => ValidationFailed.of(summarise(details), details)

export const B2bEdge = Effect.gen(function*() {
  const actors = yield* ActorClient
  const hotels = yield* Hotels
  const db = yield* Database

  /** Sends a write to the account's actor; `pathResource`: the account (or deal) is the one the URL names. */
  const write = <Op extends B2bResult["op"]>(principal: Principal, command: B2bCommand, op: Op, pathResource: boolean) =>
    answered(actors.for(B2bProtocol, principal).apply(command)).pipe(
      Effect.catchTag("B2bRefused", (e) => Effect.fail(refusal(pathResource)(e))),
      Effect.flatMap((r) =>
        r.op === op ? Effect.succeed(r as Extract<B2bResult, { op: Op }>) : Effect.die(new Error(`b2b actor answered ${r.op} to ${command.op}`)))
    )

  /** HOTEL_NOT_FOUND (422) for the first hotel id that is not one of the tenant's, naming its field. */
  const checkHotels = Effect.fn("B2b.checkHotels")(function*(principal: Principal, refs: ReadonlyArray<{ readonly hotel_id: string; readonly field: string }>) {
    for (const ref of refs) {
      const hotel = yield* hotels.resolve(principal.tenant_id, { hotel_id: ref.hotel_id })
      if (!hotel.found) {
        return yield* Unprocessable.of("HOTEL_NOT_FOUND", `No hotel with hotel_id ${JSON.stringify(ref.hotel_id)} in this account`, {
          [ref.field]: ["no such hotel in this account"]
        })
      }
    }
  })

  /** A read confined to the principal's tenant by row-level security. */
  const read = <A>(principal: Principal, f: (tx: Tx) => Promise<A>) => db.query((sql) => withTenant(sql, principal.tenant_id, f))

  return { write, checkHotels, read }
})
