import { Schema } from "effect"
import { CheckoutLink, IdentifyResult } from "../../schemas/cdp.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
const Json = Schema.Record(Schema.String, Schema.Unknown)

/** One visitor event as the ingress judged it: URL without its domain, a dedupe key over what the browser sent. */
export const TrackedEvent = Schema.Struct({
  type: Schema.String,
  url: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  data: Schema.NullOr(Json),
  ts: Schema.String,
  dedupe_key: Schema.String
})
export type TrackedEvent = typeof TrackedEvent.Type

export const TrackVisit = Schema.Struct({
  visitor_id: Schema.String,
  session_id: Schema.String,
  device: Schema.NullOr(Json),
  utm: Schema.NullOr(Json),
  referrer: Schema.NullOr(Schema.String),
  events: Schema.Array(TrackedEvent)
})
export type TrackVisit = typeof TrackVisit.Type

/** Identify with a normalised email (lower-cased) and/or phone (E.164); at least one of them. */
export const IdentifyVisitor = Schema.Struct({
  visitor_id: Schema.String,
  session_id: opt(Schema.String),
  email: opt(Schema.String),
  phone: opt(Schema.String),
  first_name: opt(Schema.String),
  last_name: opt(Schema.String)
})
export type IdentifyVisitor = typeof IdentifyVisitor.Type

/** A reservation the reservation actor committed, with the visit it came from (at least one of visitor, session, cart). */
export const LinkCheckout = Schema.Struct({
  external_reservation_id: Schema.String,
  reservation_id: Schema.String,
  hotel_id: Schema.String,
  contact_id: Schema.NullOr(Schema.String),
  visitor_id: opt(Schema.String),
  session_id: opt(Schema.String),
  cart_id: opt(Schema.String),
  utm: opt(Json)
})
export type LinkCheckout = typeof LinkCheckout.Type

/** The visit key: the visitor, else the session, else the cart (a visit's messages apply in order). */
export const visitKey = (p: { readonly visitor_id?: string | undefined; readonly session_id?: string | undefined; readonly cart_id?: string | undefined }) =>
  p.visitor_id !== undefined ? `v:${p.visitor_id}` : p.session_id !== undefined ? `s:${p.session_id}` : `c:${p.cart_id ?? ""}`

/**
 * The visitor actor: a visitor's events, its link to one current contact (identify re-points it, never merges), and
 * the post-checkout link of a reservation to its visit (once per reservation; it emits the checkout.completed that
 * stops cart journeys).
 */
export const VisitorProtocol = ActorProtocol.make("visitor", {
  key: (p) => visitKey(p as Parameters<typeof visitKey>[0]),
  messages: {
    track: ActorProtocol.message({ payload: TrackVisit, success: Schema.Struct({ accepted: Schema.Number }) }),
    identify: ActorProtocol.message({ payload: IdentifyVisitor, success: IdentifyResult }),
    checkout: ActorProtocol.message({ payload: LinkCheckout, success: CheckoutLink })
  }
})
