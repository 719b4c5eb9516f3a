import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database } from "../../core/db/Database.ts"
import { Api } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { Conflict, NotFound } from "../../schemas/errors.ts"
import { ok } from "../http/answers.ts"
import { callerScope } from "../http/handlerContext.ts"
import { pageRequest } from "../http/paging.ts"
import { inAccount, malformedId } from "./edge.ts"
import { createHotel, type HotelClash, listHotels, readHotel, updateHotel } from "./hotelStore.ts"
import { Hotels } from "./Hotels.ts"

const taken = ({ clash }: HotelClash) =>
  Conflict.of("HOTEL_EXISTS", `This account already has a hotel with this ${clash}`, { [clash]: ["already used by another hotel of this account"] })

const hotelNotFound = (id: string) => NotFound.of(`No hotel with id ${JSON.stringify(id)} in this account`, { hotel_id: ["not found"] })

/** Hotels: account configuration, the same for the live and the sandbox key of an account. */
export const HotelsLive = HttpApiBuilder.group(Api, "hotels", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const hotels = yield* Hotels
    const run = inAccount(db)

    return handlers
      .handle("create", Effect.fn("Hotels.create")(function*({ payload }) {
        const created = yield* run((tx, tenantId) => createHotel(tx, tenantId, payload))
        if ("clash" in created) return yield* taken(created)
        return ok(created)
      }))
      .handle("list", Effect.fn("Hotels.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        return ok(yield* run((tx, tenantId) => listHotels(tx, tenantId, page)))
      }))
      .handle("get", Effect.fn("Hotels.get")(function*({ params }) {
        if (!isUuid(params.hotel_id)) return yield* malformedId("hotel_id")
        const hotel = yield* run((tx, tenantId) => readHotel(tx, tenantId, params.hotel_id))
        if (hotel === undefined) return yield* hotelNotFound(params.hotel_id)
        return ok(hotel)
      }))
      .handle("update", Effect.fn("Hotels.update")(function*({ params, payload }) {
        if (!isUuid(params.hotel_id)) return yield* malformedId("hotel_id")
        const updated = yield* run((tx, tenantId) => updateHotel(tx, tenantId, params.hotel_id, payload))
        if (updated === undefined) return yield* hotelNotFound(params.hotel_id)
        if ("clash" in updated) return yield* taken(updated)
        // Reservations naming the old code stop resolving here at once (other ingresses: within their 30 s cache).
        yield* hotels.forget((yield* callerScope).tenant_id)
        return ok(updated)
      }))
  }))
