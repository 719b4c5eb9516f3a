import { Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { type ApplyWebsiteEvent, WebsiteProtocol } from "../../actors/website/protocol.ts"
import { judgeEvent, occurredAtProblem, type WebsiteEvent } from "../../core/website/contract.ts"
import type { MappingWarning } from "../../core/website/mapping.ts"
import type { Client } from "../../streams/ActorClient.ts"
import { SUBJECT_SUPPRESSED, type SubjectCheck } from "../privacy/subjectCheck.ts"
import type { Hotels } from "../tenancy/Hotels.ts"
import type { EventResult } from "./answers.ts"
import type { LiveSource } from "./WebSources.ts"

export interface Judging {
  readonly source: LiveSource
  readonly hotels: Hotels["Service"]
  readonly actor: Client<typeof WebsiteProtocol.messages>
  readonly subjects: SubjectCheck
  readonly now: number
  /** `?test=1` on the webhook URL: every event of the request is a test event. */
  readonly test: boolean
  readonly ip: string | null
  readonly userAgent: string | null
}

const rejected = (index: number, code: string, message: string, issues?: EventResult["issues"]): EventResult => ({
  index, status: "rejected", code, message, event_id: null, contact: "none", warnings: [], ...(issues === undefined ? {} : { issues })
})

/**
 * The same event for the same cart (else session) from the same guest: the natural dedupe key (rule 6). The stage
 * is part of "the same event": a cart abandoned at the room step, then at payment, is two events.
 */
export const naturalKey = (e: WebsiteEvent): string | undefined => {
  const scope = e.context?.["cart_id"] !== undefined ? `c:${e.context["cart_id"]}` : e.context?.["session_id"] !== undefined ? `s:${e.context["session_id"]}` : undefined
  const who = e.contact?.email ?? e.contact?.phone
  if (scope === undefined || who === undefined) return undefined
  return createHash("sha256").update(JSON.stringify([e.event, e.context?.["stage"] ?? null, scope, who])).digest("base64url")
}

const hotelOf = Effect.fn("Website.hotelOf")(function*(j: Judging, ctx: WebsiteEvent["context"]) {
  const ref = { hotel_id: ctx?.["hotel_id"] as string | undefined, hotel_code: ctx?.["hotel_code"] as string | undefined, hotel_name: ctx?.["hotel_name"] as string | undefined }
  if (ref.hotel_id === undefined && ref.hotel_code === undefined && ref.hotel_name === undefined) return { found: true as const, hotel_id: null }
  const r = yield* j.hotels.resolve(j.source.scope.tenant_id, ref)
  return r.found ? { found: true as const, hotel_id: r.hotel_id as string | null } : { found: false as const }
})

/**
 * One event of a request, judged on its own (rule 9): the contract, the source's allow-lists, the occurred_at
 * window and the hotel; then test events, refused people and events without a contact are answered here (nothing is
 * written for them), and the rest go to the website actor. An actor call shed or not confirmed fails the whole request
 * (unavailable, 503): its retry with the same idempotency_key is answered duplicate for what was stored.
 */
export const judgeOne = (j: Judging, raw: unknown, index: number, mappingWarnings?: ReadonlyArray<MappingWarning>) =>
  Effect.gen(function*() {
    const withMapping = (r: EventResult): EventResult => (mappingWarnings === undefined ? r : { ...r, mapping_warnings: mappingWarnings })
    const judged = judgeEvent(raw)
    if (!judged.ok) return withMapping(rejected(index, "invalid_event", "The event breaks the contract; see issues", judged.issues))
    const e = judged.event
    if (j.source.allowed_events.length > 0 && !j.source.allowed_events.includes(e.event)) {
      return withMapping(rejected(index, "event_not_allowed", `This source does not accept ${e.event}`))
    }
    const when = occurredAtProblem(e.occurred_at, j.now)
    if (when !== undefined) {
      return withMapping(rejected(index, when, when === "occurred_at_too_old" ? "occurred_at is more than 7 days old" : "occurred_at is more than 5 minutes ahead"))
    }
    const hotel = yield* hotelOf(j, e.context)
    if (!hotel.found) return withMapping(rejected(index, "hotel_unknown", "No hotel of this account has this hotel_id, hotel_code or hotel_name"))
    if (hotel.hotel_id !== null && j.source.allowed_hotels.length > 0 && !j.source.allowed_hotels.includes(hotel.hotel_id)) {
      return withMapping(rejected(index, "hotel_not_allowed", "This source does not accept events for this hotel"))
    }
    const event_id = randomUUID()
    const ok = (code: string, message: string, warnings: EventResult["warnings"] = [], id: string | null = event_id): EventResult =>
      withMapping({ index, status: "accepted", code, message, event_id: id, contact: "none", warnings })
    if (j.test || e.test === true) return ok("test_event", "Valid; test mode: logged only, no contact written, no journey started", [], null)
    if (e.not_person !== undefined) {
      return ok("refused_not_person", `The ${e.not_person} is an agency desk, placeholder or role account: no contact was made`, [], null)
    }
    if (e.contact?.email === undefined && e.contact?.phone === undefined) {
      return ok("accepted", "Accepted", [{ code: "no_contact", message: "No email or phone: counted, but no journey starts" }])
    }
    if (yield* j.subjects.isSuppressed(j.source.scope, e.contact ?? {})) {
      // Like a refused person (rule 1): accepted, nothing written, no event id; the answer never repeats the identifier.
      return ok(SUBJECT_SUPPRESSED, "The guest is suppressed by a privacy request: no contact was made and nothing was stored",
        [{ code: SUBJECT_SUPPRESSED, message: "This person is suppressed by a privacy request" }], null)
    }
    const { consent: _c, test: _t, not_person: _n, ...rest } = e
    const command: ApplyWebsiteEvent = {
      event_id, source_id: j.source.id, consent_mode: j.source.consent_mode, event: e.event,
      occurred_at: e.occurred_at === undefined ? new Date(j.now).toISOString() : new Date(Date.parse(e.occurred_at)).toISOString(),
      hotel_id: hotel.hotel_id,
      email: e.contact?.email, phone: e.contact?.phone, first_name: e.contact?.first_name, last_name: e.contact?.last_name,
      language: e.contact?.language, consent: e.consent, idempotency_key: e.idempotency_key, natural_key: naturalKey(e),
      data: { ...rest, context: e.context ?? {}, properties: e.properties ?? {} },
      ip: j.ip, user_agent: j.userAgent
    }
    const applied = yield* j.actor.apply(command)
    return withMapping({
      index, status: applied.status, code: applied.status,
      message: applied.status === "duplicate" ? "Already received: the original event_id is returned and nothing changed" : "Accepted",
      event_id: applied.event_id, contact: applied.contact, warnings: applied.warnings
    })
  })
