import { DateTime, Effect } from "effect"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { consentClaims, linkContactsToHotels, recordConsents } from "../shared/contacts.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import { GuestProtocol, type UpsertContact, type UpsertContactResult } from "./protocol.ts"

/** The guests API's upsert: resolve the phone to its contact, apply the profile, consents and the hotel link. */
const upsert = Effect.fn("GuestActor.upsert")(function*(cmd: UpsertContact) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  const [r] = yield* Actor.query((tx) => resolveContacts(tx, scope, [cmd.profile], {
    source: `guests:${cmd.source}`,
    envelopeId,
    updateIfExists: cmd.update_if_exists,
    fillOnly: cmd.fill_only,
    // The guests API's documented defaults, for a contact it creates.
    insertDefaults: { email_consent: false, whatsapp_marketing_consent: false }
  }))
  const resolved = r!
  const applied = resolved.is_new || cmd.update_if_exists
  const hotelId = cmd.hotel_id
  const [summaries] = yield* Actor.query((tx) => Promise.all([
    loadContactSummaries(tx, [resolved.contact_id]),
    hotelId !== undefined && applied ? linkContactsToHotels(tx, scope, [{ contact_id: resolved.contact_id, hotel_id: hotelId }]) : undefined,
    applied
      ? recordConsents(tx, scope, consentClaims([cmd.profile], [resolved.contact_id]).map((c) => ({
        ...c, source: cmd.consent_source ?? `guests:${cmd.source}`, envelope_id: envelopeId, captured_at: cmd.consent_timestamp
      })))
      : undefined
  ]))
  yield* Actor.emit(contactChangeCommands(subject, { ...scope, occurred_at: (yield* DateTime.nowAsDate).toISOString() }, [resolved], summaries, hotelId ?? null))
  return {
    contact_id: resolved.contact_id,
    is_new: resolved.is_new,
    changed: resolved.changed,
    conflict_with: resolved.conflict_with ?? null
  } satisfies UpsertContactResult
})

export const GuestActor = Actor.make(GuestProtocol, { upsert })
