import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)

/**
 * A sign-up, judged at the ingress (key, origin, bot check, hotel, normalised address). The ingress also prepares the
 * confirmation email for the nonce it drew; the actor sends it only when the address is not subscribed and no
 * confirmation left in the last 10 minutes.
 */
export const Subscribe = Schema.Struct({
  subscription_id: Schema.String,
  email: Schema.String,
  first_name: opt(Schema.String),
  language: opt(Schema.String),
  hotel_id: opt(Schema.String),
  source: opt(Schema.String),
  consent_text: opt(Schema.String),
  caller: Schema.Literals(["browser", "server"]),
  ip: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String),
  origin: Schema.NullOr(Schema.String),
  nonce: Schema.String,
  confirmation: Schema.Struct({ subject: Schema.String, text: Schema.String, html: Schema.String })
})
export type Subscribe = typeof Subscribe.Type

export const SubscribeOutcome = Schema.Struct({
  status: Schema.Literals(["pending", "subscribed"]),
  /** True when this sign-up queued a confirmation email (false: already subscribed, or one left in the last 10 minutes). */
  emailed: Schema.Boolean,
  contact_id: Schema.String
})
export type SubscribeOutcome = typeof SubscribeOutcome.Type

/** The confirm click: the subscription and nonce of a verified link, with the evidence of who clicked. */
export const Confirm = Schema.Struct({
  subscription_id: Schema.String,
  nonce: Schema.String,
  ip: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String)
})
export type Confirm = typeof Confirm.Type

export const Confirmed = Schema.Struct({
  contact_id: Schema.String,
  /** True when the subscription was already confirmed (a repeated click): nothing changed. */
  already: Schema.Boolean
})
export type Confirmed = typeof Confirmed.Type

/** A sign-up refused before anything was recorded (the account cannot send the confirmation email). */
export class SubscribeRefused extends Schema.TaggedError<SubscribeRefused>()("SubscribeRefused", {
  code: Schema.String,
  field: Schema.String,
  message: Schema.String
}) {}

/** A signed link whose subscription is gone or was superseded by a newer confirmation email. */
export class LinkSuperseded extends Schema.TaggedError<LinkSuperseded>()("LinkSuperseded", {}) {}

/** The newsletter actor: one subscription (tenant, mode, address), so sign-ups and confirmations of one address apply in order. */
export const NewsletterProtocol = ActorProtocol.make("newsletter", {
  key: (p) => `sub:${p.subscription_id}`,
  messages: {
    subscribe: ActorProtocol.message({ payload: Subscribe, success: SubscribeOutcome, error: SubscribeRefused }),
    confirm: ActorProtocol.message({ payload: Confirm, success: Confirmed, error: LinkSuperseded })
  }
})
