import { DateTime, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { EventProtocol, type RecordEvent } from "../../actors/event/protocol.ts"
import { normalisePhone } from "../../core/normalise/index.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { Database, withTenant } from "../../core/db/Database.ts"
import { pageRequest } from "../http/paging.ts"
import { listEvents, readEvent } from "./read.ts"
import { EventCreated, EventRequest } from "../../schemas/event.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, hotelNotFound } from "../http/answers.ts"
import { requestWarnings } from "../http/unknownFields.ts"
import { makeSubjectCheck, suppressedWarning } from "../privacy/subjectCheck.ts"
import { Hotels } from "../tenancy/Hotels.ts"

export const EventsLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const unknownFields = requestWarnings(EventRequest)
    const hotels = yield* Hotels
    const actors = yield* ActorClient
    const db = yield* Database
    const subjects = yield* makeSubjectCheck
    return handlers
      .handle("list", Effect.fn("Events.list")(function*({ query }) {
        const principal = yield* CurrentPrincipal
        const page = yield* pageRequest(query)
        const data = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => listEvents(tx, principal, query, page)))
        return { success: true as const, data }
      }))
      .handle("get", Effect.fn("Events.get")(function*({ params }) {
        const principal = yield* CurrentPrincipal
        const found = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => readEvent(tx, principal, params.event_id)))
        if (found === undefined) return yield* NotFound.of(`No event with event_id ${params.event_id}`, { event_id: ["not found"] })
        return { success: true as const, data: found }
      }))
      .handle("record", Effect.fn("Events.record")(function*({ payload: r }) {
      const principal = yield* CurrentPrincipal
      let guestPhone: string | undefined
      if (r.guest_phone !== undefined && r.contact_id === undefined) {
        const phone = normalisePhone(r.guest_phone)
        if (!phone.ok) {
          return yield* ValidationFailed.of("Invalid request: guest_phone is not a valid international number", {
            guest_phone: ["must be a valid phone number with its country code"]
          })
        }
        guestPhone = phone.e164
        if (yield* subjects.isSuppressed(principal, { phone: guestPhone })) {
          // Accepted and left out (issue 26): nothing recorded, nothing on a stream, so 200 and an id that names no
          // stored event (the event's shape has no way to say "not recorded" but its message and warning).
          const data = {
            event_id: randomUUID(), status: "accepted" as const, event_type: r.event_type, contact_id: null, hotel_id: null,
            matching_journeys: 0, created_at: (yield* DateTime.nowAsDate).toISOString(), idempotent_replay: false,
            message: "Event not recorded: the guest is suppressed by a privacy request",
            warnings: [...yield* unknownFields, suppressedWarning("guest_phone")]
          }
          return { success: true as const, data }
        }
      }
      let hotelId: string | undefined
      if (r.hotel_id !== undefined || r.hotel_code !== undefined || r.hotel_name !== undefined) {
        const hotel = yield* hotels.resolve(principal.tenant_id, r)
        if (!hotel.found) return yield* hotelNotFound(hotel)
        hotelId = hotel.hotel_id
      }
      const command: RecordEvent = {
        event_id: randomUUID(),
        event_type: r.event_type,
        payload: r.payload,
        contact_id: r.contact_id,
        guest_phone: guestPhone,
        hotel_id: hotelId,
        idempotency_key: r.idempotency_key,
        source: r.source ?? "api"
      }
      // Keyed by the idempotency key, so repeats of one key are serialised and answered with the original.
      const recorded = yield* answered(actors.for(EventProtocol, principal).record(command)).pipe(
        Effect.catchTag("ContactNotFound", (e) =>
          Effect.fail(Unprocessable.of("CONTACT_NOT_FOUND", `No contact with this ${e.field} in this account`, { [e.field]: ["no such contact"] })))
      )
      const data = { ...recorded, warnings: yield* unknownFields }
      return data.idempotent_replay ? { success: true as const, data } : new EventCreated({ success: true, data })
    }))
  }))
