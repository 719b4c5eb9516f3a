import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import type { RecordEvent } from "../../actors/event/command.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { IngressPublisher } from "../../streams/IngressPublisher.ts"
import { normalisePhone } from "../../core/normalise/index.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { askActor, failure, respond, hotelNotFound } from "../http/answers.ts"

export const EventsLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const hotels = yield* Hotels
    const publisher = yield* IngressPublisher
    return handlers.handle("record", ({ payload: r }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        let guestPhone: string | undefined
        if (r.guest_phone !== undefined && r.contact_id === undefined) {
          const phone = normalisePhone(r.guest_phone)
          if (!phone.ok) return respond(failure(400, "VALIDATION_ERROR", "Invalid request: guest_phone is not a valid international number", { guest_phone: ["must be a valid phone number with its country code"] }))
          guestPhone = phone.e164
        }
        let hotelId: string | undefined
        if (r.hotel_id !== undefined || r.hotel_code !== undefined || r.hotel_name !== undefined) {
          const hotel = yield* hotels.resolve(principal.tenant_id, r)
          if (!hotel.found) return respond(hotelNotFound(hotel))
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
        return respond(yield* askActor(publisher, principal, "event", "event.record", r.idempotency_key ?? command.event_id, command))
      }))
  }))
