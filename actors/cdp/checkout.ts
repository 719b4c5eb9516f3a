import { DateTime, Effect, Result } from "effect"
import { deterministicId } from "../../core/deterministicId.ts"
import type { CheckoutLink } from "../../schemas/cdp.ts"
import * as Actor from "../runtime/Actor.ts"
import * as Repo from "./checkoutRepository.ts"
import type { LinkCheckout } from "./protocol.ts"
import { DomainEvents } from "../../streams/topics.ts"

type Item = Actor.WaveItem<LinkCheckout>
type Answer = Actor.WaveResult<CheckoutLink, never>

const opt = (s: string | undefined) => s ?? null

/**
 * Stage 3 (transactional), a wave at a time (distinct visit keys), set-based: each committed reservation is linked to
 * the visit it came from once (`cdp_checkouts`; a repeat answers the first link). The session goes to the booker (the
 * holder's contact) and the reservation, a named visitor is pointed at the booker with its anonymous last 30 days
 * attached (stage 2), and `checkout.completed` goes out for the cart and session with the booker as its contact: the
 * stop event of cart-recovery journeys. A reservation without a booker contact claims nothing.
 */
export const checkoutWave = Effect.fn("VisitorActor.checkout")(function*(items: ReadonlyArray<Item>) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const eventIdOf = (c: LinkCheckout) => deterministicId(`cdp-checkout:${scope.tenant_id}:${scope.sandbox}:${c.external_reservation_id}`)
  // The first item naming a reservation claims it; a second in the same wave is a repeat of it.
  const seen = new Set<string>()
  const claimable = items.filter((i) => {
    const c = i.payload
    if (c.contact_id === null || seen.has(c.external_reservation_id)) return false
    seen.add(c.external_reservation_id)
    return true
  })
  const fresh = yield* Actor.query((tx) => Repo.claimCheckouts(tx, scope, claimable.map(({ payload: c }) => ({
    external_reservation_id: c.external_reservation_id, reservation_id: c.reservation_id, contact_id: c.contact_id!,
    visitor_id: opt(c.visitor_id), session_id: opt(c.session_id), cart_id: opt(c.cart_id), utm: c.utm ?? null, event_id: eventIdOf(c)
  }))))
  const linking = claimable.filter((i) => fresh.has(i.payload.external_reservation_id)).map((i) => i.payload)
  // Visitors are distinct in a wave (they are its keys); sessions may repeat across keys: the first one links.
  const visitors = linking.flatMap((c) => (c.visitor_id === undefined ? [] : [{ visitor_id: c.visitor_id, contact_id: c.contact_id! }]))
  const sessionSeen = new Set<string>()
  const sessions = linking.flatMap((c) => {
    if (c.session_id === undefined || sessionSeen.has(c.session_id)) return []
    sessionSeen.add(c.session_id)
    return [{ session_id: c.session_id, visitor_id: opt(c.visitor_id), contact_id: c.contact_id!, reservation_id: c.reservation_id, utm: c.utm ?? null }]
  })
  const [previous] = yield* Actor.query((tx) => Promise.all([Repo.pointVisitors(tx, scope, visitors), Repo.linkSessions(tx, scope, sessions)]))
  const backfilled = yield* Actor.query((tx) => Repo.backfillVisitors(tx, scope, visitors))
  const withContact = items.filter((i) => i.payload.contact_id !== null).map((i) => i.payload)
  const [, counts] = yield* Actor.query((tx) => Promise.all([
    Repo.recordCheckoutLinks(tx, scope, linking.map((c) => ({
      visitor_id: opt(c.visitor_id), session_id: opt(c.session_id), contact_id: c.contact_id!,
      previous: c.visitor_id === undefined ? null : previous.get(c.visitor_id) ?? null,
      backfilled: c.visitor_id === undefined ? 0 : backfilled.get(c.visitor_id) ?? 0
    }))),
    Repo.sessionCounts(tx, scope, withContact.map((c) => ({ contact_id: c.contact_id!, visitor_id: opt(c.visitor_id), session_id: opt(c.session_id) })))
  ]))
  const countOf = new Map(withContact.map((c, n) => [c, counts[n] ?? 0]))
  const now = (yield* DateTime.nowAsDate).toISOString()
  return items.map((item): Answer => {
    const c = item.payload
    if (c.contact_id === null) return { result: Result.succeed({ visitor_linked: false, sessions_stitched: 0, checkout_event_id: null }), outbox: [] }
    const eventId = eventIdOf(c)
    const emits = linking.includes(c)
    return {
      result: Result.succeed({ visitor_linked: c.visitor_id !== undefined, sessions_stitched: countOf.get(c) ?? 0, checkout_event_id: eventId }),
      outbox: emits
        ? [DomainEvents.message(eventId, subject("evt", "checkout.completed"), {
          ...scope, occurred_at: now, event_id: eventId, event_type: "checkout.completed", contact_id: c.contact_id,
          hotel_id: c.hotel_id, source: "cdp", origin: "website",
          data: {
            context: { ...(c.cart_id === undefined ? {} : { cart_id: c.cart_id }), ...(c.session_id === undefined ? {} : { session_id: c.session_id }) },
            properties: { reservation_id: c.reservation_id, external_reservation_id: c.external_reservation_id, ...(c.utm === undefined ? {} : { utm: c.utm }) }
          }
        })]
        : []
    }
  })
})
