import { Effect, Predicate } from "effect"
import { B2bProtocol, type B2bRefused } from "../../actors/b2b/protocol.ts"
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
export const refusal = (pathResource: boolean) => (e: B2bRefused) =>
  e.code === "CODE_TAKEN"
    ? Conflict.of(e.code, e.message, e.details)
    : e.code === "DEAL_NOT_FOUND" || (e.code === "ACCOUNT_NOT_FOUND" && pathResource)
    ? NotFound.of(e.message, e.details)
    : Unprocessable.of(e.code, e.message, e.details)

export const invalid = (details: Issues) => ValidationFailed.of(summarise(details), details)

/**
 * A write's answer as the edge gives it: a refusal rendered (`pathResource`: the account or deal it names is the one
 * the URL names), a transport failure in the core error shape (`answered`).
 */
export const written = (pathResource: boolean) => <A, E, R>(call: Effect.Effect<A, E, R>) =>
  // Typed by hand: a refusal (with any of its message's codes) is replaced by its rendering, any other error stays.
  answered(Effect.mapError(call, (e) => (isRefused(e) ? refusal(pathResource)(e) : e)) as Effect.Effect<A, Exclude<E, B2bRefused> | ReturnType<ReturnType<typeof refusal>>, R>)

const isRefused = (e: unknown): e is B2bRefused => Predicate.isTagged(e, "B2bRefused")

export const B2bEdge = Effect.gen(function*() {
  const actors = yield* ActorClient
  const hotels = yield* Hotels
  const db = yield* Database

  /** The b2b actor, asked as the principal: one method per write, each answering its own type (pipe it through `written`). */
  const b2b = (principal: Principal) => actors.for(B2bProtocol, principal)

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

  return { b2b, checkHotels, read }
})
