import { Clock, Effect, Result } from "effect"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { loadContactSummaries, resolveClaims } from "../shared/identity.ts"
import { consentOutcome, consentWarning } from "./consent.ts"
import { type ApplyWebsiteEvent, type WebsiteEventApplied, WebsiteProtocol } from "./protocol.ts"
import { claimKeys, IDEMPOTENCY_TTL_S, listening, NATURAL_TTL_S, optedOutOf, originalsOf, recordConsent, storeEvents } from "./repository.ts"
import { DomainEvents } from "../../streams/topics.ts"

const dedupeKeys = (cmd: ApplyWebsiteEvent) => [
  ...(cmd.idempotency_key === undefined ? [] : [{ key: `ik:${cmd.idempotency_key}`, ttl_s: IDEMPOTENCY_TTL_S }]),
  ...(cmd.natural_key === undefined ? [] : [{ key: `nat:${cmd.natural_key}`, ttl_s: NATURAL_TTL_S }])
]

type Applied = WebsiteEventApplied

/**
 * Identified guests' website events, a wave at a time (distinct actor keys, one tenant), set-based: a repeat of a
 * stored event (same idempotency key, or the same event and stage for the same cart or session within a minute,
 * earlier in this wave included) changes nothing and is answered duplicate with the original's id. The others'
 * contacts are matched (never changed) or created in one resolution, consent claims weighed and their evidence kept,
 * and the events a journey listens to stored, their dedupe keys claimed and `evt.<event>` written to the outbox in
 * the same transaction (rule 7: the rest are counted, not stored, and a repeat is accepted again).
 */
const apply = (items: ReadonlyArray<Actor.WaveItem<ApplyWebsiteEvent>>) => Effect.gen(function*() {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const keysOf = items.map((i) => dedupeKeys(i.payload))
  const originals = yield* Actor.query((tx) => originalsOf(tx, scope, keysOf.flat().map((k) => k.key)))
  const claimed = new Map<string, Applied>()
  const answers: Array<Applied | undefined> = items.map((_, n) => {
    const hit = keysOf[n]!.map((k) => originals.get(k.key)).find((o) => o !== undefined)
    return hit === undefined ? undefined : { status: "duplicate", event_id: hit.event_id, contact: hit.contact, contact_id: hit.contact_id, stored: true, warnings: [] }
  })
  const fresh = items.flatMap((_, n) => (answers[n] === undefined ? [n] : []))
  const resolved = yield* Actor.query((tx) => resolveClaims(tx, scope, fresh.map((n) => {
    const c = items[n]!.payload
    return {
      profile: { email: c.email, phone: c.phone, first_name: c.first_name, last_name: c.last_name, language: c.language?.slice(0, 2).toLowerCase() },
      source: `website:${c.source_id}`, envelopeId: c.event_id, updateIfExists: false
    }
  })))
  const contactOf = new Map(fresh.map((n, k) => [n, resolved[k]!]))
  // Contacts are matched, never changed: only a created one has news for the webhooks (`contact.created`, as every path).
  const created = resolved.flatMap((r) => (r?.is_new ? [r.contact_id] : []))
  const summaries = yield* Actor.query((tx) => loadContactSummaries(tx, created))
  const consenting = fresh.filter((n) => items[n]!.payload.consent?.email_marketing === true).map((n) => contactOf.get(n)!.contact_id)
  const optedOut = yield* Actor.query((tx) => optedOutOf(tx, consenting))
  const listens = yield* Actor.query((tx) => listening(tx, scope, fresh.map((n) => ({ event: items[n]!.payload.event, hotel_id: items[n]!.payload.hotel_id }))))
  const now = yield* Clock.currentTimeMillis
  const toStore: Array<{ cmd: ApplyWebsiteEvent; contact_id: string; contact: "matched" | "created" }> = []
  for (const n of fresh) {
    const cmd = items[n]!.payload
    // A natural key claimed earlier in this wave (another actor key, the same guest's same cart): a duplicate of it.
    const earlier = keysOf[n]!.map((k) => claimed.get(k.key)).find((a) => a !== undefined)
    if (earlier !== undefined) {
      answers[n] = { ...earlier, status: "duplicate", warnings: [] }
      continue
    }
    const r = contactOf.get(n)!
    const contact = r.is_new ? "created" as const : "matched" as const
    const outcome = consentOutcome(cmd.consent, cmd.consent_mode, optedOut.has(r.contact_id), now)
    if (outcome !== undefined) yield* Actor.query((tx) => recordConsent(tx, scope, cmd, r.contact_id, outcome))
    const stored = listens.has(`${cmd.event}|${cmd.hotel_id}`)
    const applied: Applied = { status: "accepted", event_id: cmd.event_id, contact, contact_id: r.contact_id, stored, warnings: consentWarning(outcome) }
    answers[n] = applied
    if (stored) {
      toStore.push({ cmd, contact_id: r.contact_id, contact })
      for (const k of keysOf[n]!) claimed.set(k.key, applied)
    }
  }
  yield* Actor.query((tx) => Promise.all([
    storeEvents(tx, scope, toStore),
    claimKeys(tx, scope, toStore.flatMap((s, i) => dedupeKeys(s.cmd).map((k) => ({ ...k, event_id: s.cmd.event_id, contact: s.contact, order: i }))))
  ]))
  const storedIds = new Set(toStore.map((s) => s.cmd.event_id))
  const occurred_at = new Date(now).toISOString()
  return items.map((item, n): Actor.WaveResult<Applied, never> => {
    const cmd = item.payload
    const a = answers[n]!
    const publish = a.status === "accepted" && storedIds.has(cmd.event_id)
    const r = contactOf.get(n)
    const contactNews = r === undefined ? [] : contactChangeCommands(subject, { ...scope, occurred_at }, [r], summaries, cmd.hotel_id)
    return {
      result: Result.succeed(a),
      outbox: [...contactNews, ...(publish
        ? [DomainEvents.message(cmd.event_id, subject("evt", cmd.event), {
          ...scope, occurred_at: cmd.occurred_at, event_id: cmd.event_id, event_type: cmd.event, contact_id: a.contact_id,
          hotel_id: cmd.hotel_id, source: cmd.source_id, origin: "website", data: cmd.data
        })]
        : [])]
    }
  })
})

export const WebsiteActor = Actor.make(WebsiteProtocol, { apply: { wave: apply } })
