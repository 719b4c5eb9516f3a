import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GuestProtocol } from "../../actors/guest/protocol.ts"
import { ReservationProtocol } from "../../actors/reservation/protocol.ts"
import { Database, withTenant } from "../../core/db/Database.ts"
import { normalisePhone } from "../../core/normalise/index.ts"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { NotFound, ValidationFailed } from "../../schemas/errors.ts"
import { GuestCreated, GuestRequest, type GuestResult } from "../../schemas/guest.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, batchItems, batchResults, batchSizeRefused, hotelNotFound, type Outcome, refusal } from "../http/answers.ts"
import { summarise } from "../http/issues.ts"
import { requestWarnings, withWarnings } from "../http/unknownFields.ts"
import { makeSubjectCheck, suppressedWarning } from "../privacy/subjectCheck.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { checkCustomFields, type FieldRule } from "./customFields.ts"
import { bookingToReservation, toUpsertContact } from "./normalise.ts"
import { channelMapping, fieldRules, readGuestProfile } from "./repository.ts"

const BATCH_MAX = 500

export const GuestsLive = HttpApiBuilder.group(Api, "guests", (handlers) =>
  Effect.gen(function*() {
    const hotels = yield* Hotels
    const actors = yield* ActorClient
    const db = yield* Database
    const guestItem = batchItems(GuestRequest)
    const unknownFields = requestWarnings(GuestRequest)
    const subjects = yield* makeSubjectCheck

    /** One guest: hotel, custom fields, identity, then the guest actor and, with a booking, the reservation actor. */
    const upsertGuest = Effect.fn("Guests.upsert")(function*(principal: Principal, r: GuestRequest, rules: ReadonlyArray<FieldRule>) {
      let hotelId: string | undefined
      if (r.hotel_code !== undefined || r.hotel_name !== undefined) {
        const hotel = yield* hotels.resolve(principal.tenant_id, r)
        if (!hotel.found) return yield* hotelNotFound(hotel)
        hotelId = hotel.hotel_id
      } else if (r.booking !== undefined) {
        return yield* ValidationFailed.of("Invalid request: a booking needs hotel_code or hotel_name", { hotel_code: ["is required with a booking (or hotel_name)"] })
      }
      let customFields: Record<string, unknown> | undefined
      if (r.custom_fields !== undefined) {
        const checked = checkCustomFields(r.custom_fields, rules)
        if (!checked.ok) return yield* ValidationFailed.of(summarise(checked.details), checked.details)
        customFields = checked.values
      }
      const check = toUpsertContact(r, hotelId, customFields)
      if (!check.ok) return yield* refusal(check.status, check.code, check.message, check.details)
      const command = check.command
      if (yield* subjects.isSuppressed(principal, command.profile)) {
        // Accepted and left out (issue 26): no contact, no booking, nothing on a stream; 200, since nothing was created.
        const data: GuestResult = {
          contact_id: null, is_new: false, hotel_id: hotelId ?? null, reservation_id: null, event_id: null,
          message: "Guest not stored: suppressed by a privacy request", warnings: [...command.warnings, suppressedWarning("(body)")]
        }
        return { created: false, data } satisfies Outcome<GuestResult>
      }

      const contact = yield* answered(actors.for(GuestProtocol, principal).upsert(command))
      let reservationId: string | null = null
      let eventId: string | null = null
      const warnings = [...command.warnings]
      if (r.booking !== undefined && hotelId !== undefined) {
        const channel = r.booking.booking_channel == null
          ? undefined
          : yield* db.query((sql) => channelMapping(sql, principal.tenant_id, r.booking!.booking_channel!))
        const reservation = bookingToReservation(r, r.booking, command, hotelId, channel)
        warnings.push(...reservation.warnings)
        const booked = yield* answered(actors.for(ReservationProtocol, principal).upsert(reservation))
        if ("reservation_id" in booked) {
          reservationId = booked.reservation_id
          eventId = booked.event_id
        }
      }
      const message = contact.is_new
        ? "Guest created"
        : command.update_if_exists ? (contact.changed ? "Guest updated" : "Guest unchanged") : "Guest exists; not updated (update_if_exists is false)"
      const data: GuestResult = { contact_id: contact.contact_id, is_new: contact.is_new, hotel_id: hotelId ?? null, reservation_id: reservationId, event_id: eventId, message, warnings }
      return { created: contact.is_new, data } satisfies Outcome<GuestResult>
    })

    const rulesFor = (principal: Principal, needed: boolean) =>
      needed ? db.query((sql) => fieldRules(sql, principal)) : Effect.succeed([] as Array<FieldRule>)

    return handlers
      .handle("upsert", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const rules = yield* rulesFor(principal, payload.custom_fields !== undefined)
          const outcome = yield* upsertGuest(principal, payload, rules)
          const data = withWarnings(outcome.data, yield* unknownFields)
          return outcome.created ? new GuestCreated({ success: true, data }) : { success: true as const, data }
        }))
      .handle("batch", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const items = payload.guests
          if (items.length === 0 || items.length > BATCH_MAX) return yield* batchSizeRefused("guests", BATCH_MAX, items.length)
          const rules = yield* rulesFor(principal, true)
          const answers = yield* Effect.forEach(items, guestItem((g) => upsertGuest(principal, g, rules)), { concurrency: 64 })
          return {
            success: true as const,
            data: {
              total: answers.length,
              created: answers.filter((a) => a.status === 201).length,
              updated: answers.filter((a) => a.status === 200).length,
              failed: answers.filter((a) => !a.success).length,
              results: batchResults(answers)
            }
          }
        }))
      .handle("lookup", ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const phone = normalisePhone(query.phone)
          if (!phone.ok) return yield* ValidationFailed.of("Invalid request: phone is not a valid international number", { phone: ["must be a valid phone number with its country code"] })
          const profile = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => readGuestProfile(tx, principal, phone.e164)))
          if (profile === undefined) return yield* NotFound.of("No contact with this phone", { phone: ["not found"] })
          return { success: true as const, data: profile }
        }))
  }))
