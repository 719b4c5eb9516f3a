import { DateTime, Effect } from "effect"
import { readEmailChannel } from "../../core/channel/repository.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import { afterResend } from "../../core/newsletter/resend.ts"
import { MessageProtocol } from "../message/protocol.ts"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { linkContactsToHotels } from "../shared/contacts.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import { type Confirm, LinkSuperseded, NewsletterProtocol, type Subscribe, SubscribeRefused, type SubscribeOutcome } from "./protocol.ts"
import { confirmSubscription, findSubscription, savePending } from "./repository.ts"

/** The confirmation email's message id: one per subscription and nonce, so a redelivered send lands on the same message. */
export const confirmationMessageId = (subscriptionId: string, nonce: string) => deterministicId(`newsletter:${subscriptionId}:${nonce}`)

/**
 * A sign-up: an already subscribed address answers `subscribed` and nothing is sent; a pending one whose last email
 * left less than 10 minutes ago, or that was sent three in the last 24 hours, answers `pending` and nothing is sent
 * (core/newsletter/resend.ts). Otherwise the address resolves to its contact (matched, never changed; or created
 * without consent), the subscription stores the new nonce, and the confirmation email goes to the message actor in the
 * same transaction: the one gated send path, once per message id.
 */
const subscribe = Effect.fn("NewsletterActor.subscribe")(function*(cmd: Subscribe) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  const [row, setup] = yield* Actor.query((tx) => Promise.all([findSubscription(tx, scope, cmd.subscription_id), readEmailChannel(tx, scope)]))
  if (row?.status === "subscribed") return { status: "subscribed", emailed: false, contact_id: row.contact_id } satisfies SubscribeOutcome
  const now = yield* DateTime.nowAsDate
  const recentSends = afterResend(row?.recent_sends ?? [], now)
  if (row !== undefined && recentSends === undefined) {
    return { status: "pending", emailed: false, contact_id: row.contact_id } satisfies SubscribeOutcome
  }
  if (!setup) {
    return yield* Effect.fail(new SubscribeRefused({ code: "CHANNEL_NOT_CONFIGURED", field: "email", message: "Newsletter signup cannot send its confirmation email: the account's email channel is not configured" }))
  }
  const profile = {
    email: cmd.email,
    ...(cmd.first_name === undefined ? {} : { first_name: cmd.first_name }),
    ...(cmd.language === undefined ? {} : { language: cmd.language.slice(0, 2) })
  }
  const [resolved] = yield* Actor.query((tx) => resolveContacts(tx, scope, [profile], {
    source: `newsletter:${cmd.source ?? "widget"}`, envelopeId, updateIfExists: false,
    // Consent comes only from the confirm click, never from the sign-up itself.
    insertDefaults: { email_consent: false, whatsapp_marketing_consent: false }
  }))
  const contactId = resolved!.contact_id
  const hotelId = cmd.hotel_id
  yield* Actor.query((tx) => Promise.all([
    savePending(tx, scope, cmd, contactId, recentSends ?? [now]),
    hotelId === undefined ? undefined : linkContactsToHotels(tx, scope, [{ contact_id: contactId, hotel_id: hotelId }])
  ]))
  const messageId = confirmationMessageId(cmd.subscription_id, cmd.nonce)
  const send = yield* Actor.tell(MessageProtocol, "send", {
    message_id: messageId, contact_id: contactId, channel: "email", category: "utility", origin: "newsletter",
    subject: cmd.confirmation.subject, text: cmd.confirmation.text, html: cmd.confirmation.html,
    ...(hotelId === undefined ? {} : { hotel_id: hotelId })
  }, `newsletter-send:${messageId}`)
  const summaries = resolved!.is_new ? yield* Actor.query((tx) => loadContactSummaries(tx, [contactId])) : new Map()
  yield* Actor.emit([send, ...contactChangeCommands(subject, { ...scope, occurred_at: now.toISOString() }, [resolved!], summaries, hotelId ?? null)])
  return { status: "pending", emailed: true, contact_id: contactId } satisfies SubscribeOutcome
})

/**
 * The confirm click of a verified link: a pending subscription whose newest email carried this nonce becomes
 * subscribed, with consent and evidence; a subscribed one answers the same success again (idempotent); an unknown or
 * superseded nonce confirms nothing.
 */
const confirm = Effect.fn("NewsletterActor.confirm")(function*(cmd: Confirm) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  const row = yield* Actor.query((tx) => findSubscription(tx, scope, cmd.subscription_id))
  if (row === undefined) return yield* Effect.fail(new LinkSuperseded())
  if (row.status === "subscribed") return { contact_id: row.contact_id, already: true }
  if (row.nonce !== cmd.nonce) return yield* Effect.fail(new LinkSuperseded())
  const now = yield* DateTime.nowAsDate
  yield* Actor.query((tx) => confirmSubscription(tx, scope, row, cmd, envelopeId, now))
  return { contact_id: row.contact_id, already: false }
})

// Per-envelope handlers with several round trips each: groups applied side by side pay off (as for messages and journeys).
export const NewsletterActor = Actor.make(NewsletterProtocol, { subscribe, confirm }, { minLanes: 4 })
