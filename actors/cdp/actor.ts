import { DateTime, Effect } from "effect"
import type { IdentifyResult } from "../../schemas/cdp.ts"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { loadContactSummaries, resolveClaims } from "../shared/identity.ts"
import { checkoutWave } from "./checkout.ts"
import { type IdentifyVisitor, type TrackVisit, VisitorProtocol } from "./protocol.ts"
import * as Repo from "./repository.ts"

/** Stores a visit's events under the visitor (and its current contact, when it has one) and its session. */
const track = Effect.fn("VisitorActor.track")(function*(visit: TrackVisit) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const contactId = yield* Actor.query((tx) => Repo.touchVisitor(tx, scope, visit.visitor_id))
  yield* Actor.query((tx) => Promise.all([
    Repo.touchSession(tx, scope, { session_id: visit.session_id, visitor_id: visit.visitor_id, device: visit.device, utm: visit.utm, referrer: visit.referrer }),
    Repo.insertEvents(tx, scope, visit, contactId)
  ]))
  return { accepted: visit.events.length }
})

/**
 * Stage 1 (deterministic: the existing resolver, phone first then email, matched or created, never changed here) then
 * stage 2 (stitching): the visitor points at that contact from now on and its anonymous last 30 days are attached. A
 * visitor already pointing at another contact (a shared device) is re-pointed: the two contacts stay apart.
 */
const identify = Effect.fn("VisitorActor.identify")(function*(cmd: IdentifyVisitor) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  const [resolved] = yield* Actor.query((tx) => resolveClaims(tx, scope, [{
    profile: { email: cmd.email, phone: cmd.phone, first_name: cmd.first_name, last_name: cmd.last_name },
    source: "cdp:identify", envelopeId, updateIfExists: false
  }]))
  const contact = resolved!
  // Independent statements pipelined on the transaction's connection (one round trip).
  const [previous] = yield* Actor.query((tx) => Promise.all([
    Repo.touchVisitor(tx, scope, cmd.visitor_id),
    cmd.session_id === undefined ? undefined : Repo.touchSession(tx, scope, { session_id: cmd.session_id, visitor_id: cmd.visitor_id })
  ]))
  // Matched, never changed: a created contact is news for the webhooks (`contact.created`, as every path).
  if (contact.is_new) {
    const summaries = yield* Actor.query((tx) => loadContactSummaries(tx, [contact.contact_id]))
    yield* Actor.emit(contactChangeCommands(subject, { ...scope, occurred_at: (yield* DateTime.nowAsDate).toISOString() }, [contact], summaries, null))
  }
  const kind = previous === null ? "linked" as const : previous === contact.contact_id ? "already_linked" as const : "reassigned" as const
  const backfilled = yield* Actor.query((tx) =>
    Repo.linkVisitor(tx, scope, { visitor_id: cmd.visitor_id, session_id: cmd.session_id, contact_id: contact.contact_id, previous, kind }))
  return {
    contact_id: contact.contact_id, is_new: contact.is_new, visitor_linked: true, visitor: kind, backfilled_events: backfilled
  } satisfies IdentifyResult
})

export const VisitorActor = Actor.make(VisitorProtocol, { track, identify, checkout: { wave: checkoutWave } })
