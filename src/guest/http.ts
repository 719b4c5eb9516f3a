import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { GuestRequest } from "../../schemas/guest.ts"
import type { UpsertContactReply } from "../../actors/guest/command.ts"
import { IngressPublisher } from "../../streams/IngressPublisher.ts"
import { Database, withTenant } from "../../core/db/Database.ts"
import { checkCustomFields, type FieldRule } from "./customFields.ts"
import { bookingToReservation, toUpsertContact } from "./normalise.ts"
import { channelMapping, fieldRules, readGuestProfile } from "./repository.ts"
import { normalisePhone } from "../../core/normalise/index.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { type Answer, askActor, batchItem, batchResults, failure, hotelNotFound, respond } from "../http/answers.ts"
import { summarise } from "../http/issues.ts"

const BATCH_MAX = 500

export const GuestsLive = HttpApiBuilder.group(Api, "guests", (handlers) =>
  Effect.gen(function*() {
    const hotels = yield* Hotels
    const publisher = yield* IngressPublisher
    const db = yield* Database

    /** One guest: hotel, custom fields, identity, then the guest actor and, with a booking, the reservation actor. */
    const upsertGuest = Effect.fn("Guests.upsert")(function*(principal: Principal, r: GuestRequest, rules: ReadonlyArray<FieldRule>) {
      let hotelId: string | undefined
      if (r.hotel_code !== undefined || r.hotel_name !== undefined) {
        const hotel = yield* hotels.resolve(principal.tenant_id, r)
        if (!hotel.found) {
          return hotelNotFound(hotel)
        }
        hotelId = hotel.hotel_id
      } else if (r.booking !== undefined) {
        return failure(400, "VALIDATION_ERROR", "Invalid request: a booking needs hotel_code or hotel_name", { hotel_code: ["is required with a booking (or hotel_name)"] })
      }
      let customFields: Record<string, unknown> | undefined
      if (r.custom_fields !== undefined) {
        const checked = checkCustomFields(r.custom_fields, rules)
        if (!checked.ok) return failure(400, "VALIDATION_ERROR", summarise(checked.details), checked.details)
        customFields = checked.values
      }
      const check = toUpsertContact(r, hotelId, customFields)
      if (!check.ok) return failure(check.status, check.code, check.message, check.details)
      const command = check.command

      const contactAnswer = yield* askActor(publisher, principal, "guest", "guest.upsert", command.profile.phone, command)
      if (contactAnswer.status >= 300) return contactAnswer
      const contact = contactAnswer.body as UpsertContactReply
      let reservationId: string | null = null
      let eventId: string | null = null
      const warnings = [...command.warnings]
      if (r.booking !== undefined && hotelId !== undefined) {
        const channel = r.booking.booking_channel == null
          ? undefined
          : yield* db.query((sql) => channelMapping(sql, principal.tenant_id, r.booking!.booking_channel!))
        const reservation = bookingToReservation(r, r.booking, command, hotelId, channel)
        warnings.push(...reservation.warnings)
        const answer = yield* askActor(publisher, principal, "reservation", "reservation.upsert", reservation.external_id, reservation)
        if (answer.status >= 300) return answer
        const data = (answer.body as { data: { reservation_id?: string; event_id?: string | null } }).data
        reservationId = data.reservation_id ?? null
        eventId = data.event_id ?? null
      }
      const message = contact.is_new
        ? "Guest created"
        : command.update_if_exists ? (contact.changed ? "Guest updated" : "Guest unchanged") : "Guest exists; not updated (update_if_exists is false)"
      return {
        status: contact.is_new ? 201 : 200,
        body: {
          success: true,
          data: { contact_id: contact.contact_id, is_new: contact.is_new, hotel_id: hotelId ?? null, reservation_id: reservationId, event_id: eventId, message, warnings }
        }
      } satisfies Answer
    })

    const rulesFor = (principal: Principal, needed: boolean) =>
      needed ? db.query((sql) => fieldRules(sql, principal)) : Effect.succeed([] as Array<FieldRule>)

    return handlers
      .handle("upsert", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const rules = yield* rulesFor(principal, payload.custom_fields !== undefined)
          return respond(yield* upsertGuest(principal, payload, rules))
        }))
      .handle("batch", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const items = payload.guests
          if (items.length === 0 || items.length > BATCH_MAX) {
            return respond(failure(400, "VALIDATION_ERROR", `guests must hold 1 to ${BATCH_MAX} items`, { guests: [`must hold 1 to ${BATCH_MAX} items (got ${items.length})`] }))
          }
          const rules = yield* rulesFor(principal, true)
          const answers = yield* Effect.forEach(items, batchItem(GuestRequest, (g) => upsertGuest(principal, g, rules)), { concurrency: 64 })
          return respond({
            status: 200,
            body: {
              success: true,
              data: {
                total: answers.length,
                created: answers.filter((a) => a.status === 201).length,
                updated: answers.filter((a) => a.status === 200).length,
                failed: answers.filter((a) => a.status >= 300).length,
                results: batchResults(answers)
              }
            }
          })
        }))
      .handle("lookup", ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const phone = normalisePhone(query.phone)
          if (!phone.ok) return respond(failure(400, "VALIDATION_ERROR", "Invalid request: phone is not a valid international number", { phone: ["must be a valid phone number with its country code"] }))
          const profile = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => readGuestProfile(tx, principal, phone.e164)))
          return profile === undefined
            ? respond(failure(404, "NOT_FOUND", "No contact with this phone", { phone: ["not found"] }))
            : respond({ status: 200, body: { success: true, data: profile } })
        }))
  }))
