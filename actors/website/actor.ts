import { Effect } from "effect"
import * as Actor from "../runtime/Actor.ts"
import { resolveClaims } from "../shared/identity.ts"
import { consentOutcome, consentWarning } from "./consent.ts"
import { type ApplyWebsiteEvent, WebsiteProtocol } from "./protocol.ts"
import {
  claimKeys, IDEMPOTENCY_TTL_S, journeyListens, NATURAL_TTL_S, optedOut, originalOf, recordConsent, storeEvent
} from "./repository.ts"

const dedupeKeys = (cmd: ApplyWebsiteEvent) => [
  ...(cmd.idempotency_key === undefined ? [] : [{ key: `ik:${cmd.idempotency_key}`, ttl_s: IDEMPOTENCY_TTL_S }]),
  ...(cmd.natural_key === undefined ? [] : [{ key: `nat:${cmd.natural_key}`, ttl_s: NATURAL_TTL_S }])
]

/**
 * One identified guest's website event: a repeat of a stored event (same idempotency key, or the same event for the
 * same cart or session within a minute) changes nothing and is answered duplicate with the original's id. Otherwise
 * the contact is matched (never changed) or created, the consent claim weighed and its evidence kept, and, when an
 * active journey listens, the event is stored, its dedupe keys claimed and `evt.<event>` published in the same
 * transaction (rule 7: otherwise counted, not stored, and a repeat is accepted again).
 */
const apply = Effect.fn("WebsiteActor.apply")(function*(cmd: ApplyWebsiteEvent) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const keys = dedupeKeys(cmd)
  const original = yield* Actor.query((tx) => originalOf(tx, scope, keys.map((k) => k.key)))
  if (original !== undefined) {
    const [row] = yield* Actor.query((tx) => tx`SELECT contact_id FROM website_events WHERE id = ${original.event_id}`)
    return {
      status: "duplicate" as const, event_id: original.event_id, contact: original.contact,
      contact_id: (row?.contact_id as string | undefined) ?? "", stored: true, warnings: []
    }
  }
  const [resolved] = yield* Actor.query((tx) => resolveClaims(tx, scope, [{
    profile: {
      email: cmd.email, phone: cmd.phone, first_name: cmd.first_name, last_name: cmd.last_name,
      language: cmd.language?.slice(0, 2).toLowerCase()
    },
    source: `website:${cmd.source_id}`, envelopeId: cmd.event_id, updateIfExists: false
  }]))
  const contactId = resolved!.contact_id
  const contact = resolved!.is_new ? "created" as const : "matched" as const
  const out = cmd.consent?.email_marketing === true ? yield* Actor.query((tx) => optedOut(tx, contactId)) : false
  const outcome = consentOutcome(cmd.consent, cmd.consent_mode, out, Date.now())
  if (outcome !== undefined) yield* Actor.query((tx) => recordConsent(tx, scope, cmd, contactId, outcome))
  const listens = yield* Actor.query((tx) => journeyListens(tx, scope, cmd.event, cmd.hotel_id))
  if (listens) {
    yield* Actor.query((tx) => Promise.all([storeEvent(tx, scope, cmd, contactId), claimKeys(tx, scope, keys, cmd.event_id, contact)]))
    yield* Actor.emit([{
      id: cmd.event_id,
      subject: subject("evt", cmd.event),
      payload: {
        ...scope, occurred_at: cmd.occurred_at, event_id: cmd.event_id, event_type: cmd.event, contact_id: contactId,
        hotel_id: cmd.hotel_id, source: cmd.source_id, origin: "website", data: cmd.data
      }
    }])
  }
  return { status: "accepted" as const, event_id: cmd.event_id, contact, contact_id: contactId, stored: listens, warnings: consentWarning(outcome) }
})

export const WebsiteActor = Actor.make(WebsiteProtocol, { apply })
