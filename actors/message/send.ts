import { DateTime, Effect } from "effect"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { randomUUID } from "node:crypto"
import { senderFor } from "../../core/channel/repository.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { contactIdentifiers } from "../../core/privacy/identifier.ts"
import type { MessageCategory } from "../../schemas/message.ts"
import * as Actor from "../runtime/Actor.ts"
import { conversationEvent, deliverCommand } from "./events.ts"
import { decideBroadcastSend, loadBroadcastFacts, loadRecipientFacts } from "./broadcastSend.ts"
import { type SendCommand, type SendOutcome, SendRefused } from "./protocol.ts"
import { type channelSetup, openConversation } from "./repository.ts"
import {
  channelSetups, findMessages, hotelsOfTenant, insertMessages, loadRecipients, suppressionsOf, touchConversations
} from "./sendStatements.ts"
import { addressOf, gate, serviceWindowOpen } from "./state.ts"

const refuse = (status: 404 | 422, code: string, field: string, message: string) =>
  Effect.fail(new SendRefused({ status, code, field, message }))

/** The category a send is gated by, after checking it against what the channel has registered. */
const categoryOf = Effect.fn("MessageActor.categoryOf")(function*(
  cmd: SendCommand, setup: Extract<Awaited<ReturnType<typeof channelSetup>>, { configured: true }>, contactId: string
) {
  if (cmd.channel === "email") return (cmd.category ?? "marketing") as MessageCategory
  if (cmd.template === undefined) {
    // A free-form reply: only inside the customer-service window the guest's last message opened.
    const open = yield* Actor.query((tx, scope) => openConversation(tx, scope, contactId, "whatsapp"))
    if (!serviceWindowOpen(open?.last_inbound_at ?? null, yield* DateTime.nowAsDate)) {
      return yield* refuse(422, "SERVICE_WINDOW_CLOSED", "text",
        "A free-form WhatsApp message can only answer a guest who wrote in the last 24 hours; send an approved template")
    }
    return "service" as const
  }
  const t = cmd.template
  const registered = setup.templates.find((r) => r.name === t.name && r.language === t.language)
  if (registered === undefined) {
    return yield* refuse(422, "TEMPLATE_UNKNOWN", "template.name", `No approved template ${JSON.stringify(t.name)} in language ${JSON.stringify(t.language)} is registered`)
  }
  const given = t.parameters?.length ?? 0
  if (given !== registered.body_parameters) {
    return yield* refuse(422, "TEMPLATE_PARAMETER_COUNT", "template.parameters",
      `Template ${JSON.stringify(t.name)} takes ${registered.body_parameters} body parameters; ${given} given`)
  }
  if (cmd.category !== undefined && cmd.category !== registered.category) {
    return yield* refuse(422, "CATEGORY_MISMATCH", "category", `Template ${JSON.stringify(t.name)} is registered as ${registered.category}`)
  }
  return registered.category as MessageCategory
})

/**
 * One send through the gates: refused (nothing recorded) when it names what the account does not have; recorded as
 * skipped when the guest may not or cannot receive it; otherwise recorded as queued in the contact's conversation,
 * with the deliverer's command in the same transaction. A message id seen before answers what was recorded.
 */
const sendChecked = Effect.fn("MessageActor.send")(function*(cmd: SendCommand) {
  const { scope, subject, target } = yield* Effect.service(Actor.GroupTransaction)
  // Each step is one multi-row statement for the whole wave (sendStatements.ts): the first reads, the suppression
  // lookup beside a broadcast's second reads, the conversation, the message.
  const hotelId = cmd.hotel_id
  const broadcastId = cmd.broadcast_id
  const [existing, contact, setup, hotelKnown, broadcast] = yield* Effect.all([
    findMessages(cmd.message_id),
    loadRecipients(cmd.contact_id),
    channelSetups(cmd.channel),
    hotelId === undefined ? Effect.succeed(true) : hotelsOfTenant(hotelId),
    broadcastId === undefined ? Effect.succeed(undefined) : loadBroadcastFacts(broadcastId, cmd.contact_id)
  ], { concurrency: "unbounded" })
  if (existing) {
    return { message_id: existing.id, status: existing.status, skip_reason: existing.skip_reason, is_new: false } satisfies SendOutcome
  }
  if (!contact) return yield* refuse(404, "CONTACT_NOT_FOUND", "contact_id", `No contact with id ${JSON.stringify(cmd.contact_id)}`)
  if (!hotelKnown) return yield* refuse(422, "HOTEL_UNKNOWN", "hotel_id", `No hotel with id ${JSON.stringify(hotelId)} in this account`)
  if (!setup.configured) {
    return yield* refuse(422, "CHANNEL_NOT_CONFIGURED", "channel", `The ${cmd.channel} channel is not configured for this account (PUT /api/v1/channels/${cmd.channel})`)
  }
  const category = yield* categoryOf(cmd, setup, contact.id)
  const address = addressOf(contact, cmd.channel)
  // A privacy request's suppression (issue 26) is looked up by the keyed hashes of the contact's identifiers, with
  // the address's own suppression in the same statement; it skips the message before any other rule.
  const privacy = yield* PrivacyKey
  const hashes = contactIdentifiers(contact).map((identifier) => privacy.hash(scope.tenant_id, identifier))
  const clock = yield* DateTime.nowAsDate
  const now = clock.toISOString()
  const [suppression, recipient] = yield* Effect.all([
    suppressionsOf({ channel: cmd.channel, address, hashes }),
    broadcast === undefined ? Effect.succeed(undefined) : Actor.query((tx) => loadRecipientFacts(tx, scope, cmd, contact, broadcast, category, clock))
  ], { concurrency: "unbounded" })
  const suppressed = suppression === "suppressed"
  // A broadcast's message is decided against its broadcast too: skipped with the broadcast's reasons, or held.
  const decision = suppression === "subject_suppressed"
    ? { skip: suppression, notBefore: null }
    : broadcastId === undefined || broadcast === undefined || recipient === undefined
    ? { skip: gate(contact, cmd.channel, cmd.gate_as ?? category, suppressed), notBefore: null }
    : yield* decideBroadcastSend({ ...cmd, broadcast_id: broadcastId }, contact, category, suppressed, clock, broadcast, recipient).pipe(
      Effect.map((d) => (d.send ? { skip: null, notBefore: d.notBefore } : { skip: d.reason, notBefore: null }))
    )
  const skip = decision.skip

  const sender = setup.email === undefined ? undefined : senderFor(setup.email, hotelId)
  // A send that leaves continues the contact's open conversation on the channel, or opens one.
  const conversation = skip === null
    ? yield* touchConversations({ contact_id: contact.id, channel: cmd.channel, new_id: randomUUID(), at: now, namespace: target.namespace })
    : undefined
  const row = yield* insertMessages({
    id: cmd.message_id,
    contact_id: contact.id,
    conversation_id: conversation?.id ?? null,
    channel: cmd.channel,
    direction: "outbound",
    category,
    origin: cmd.origin,
    hotel_id: hotelId ?? null,
    to_address: address,
    from_address: sender?.from_address ?? setup.phone_number_id ?? null,
    template_name: cmd.template?.name ?? null,
    template_language: cmd.template?.language ?? null,
    template_parameters: cmd.template === undefined ? null : cmd.template.parameters ?? [],
    subject: cmd.subject ?? null,
    body_text: cmd.text ?? null,
    body_html: cmd.html ?? null,
    status: skip === null ? "queued" : "skipped",
    skip_reason: skip,
    provider_message_id: null,
    journey_run_id: cmd.journey_run_id ?? null,
    step_id: cmd.step_id ?? null,
    broadcast_id: broadcastId ?? null,
    not_before: decision.notBefore?.toISOString() ?? null,
    hold_namespace: decision.notBefore === null ? null : target.namespace,
    created_at: now
  })
  if (row && skip === null) {
    // A held message's deliver command is written when its hold ends (heldRelease.ts), not now.
    if (decision.notBefore === null) yield* Actor.emit([deliverCommand(subject, scope, row)])
    // The contact as loaded above is the summary the webhook carries (same row, same transaction).
    if (conversation?.is_new) yield* Actor.emit([conversationEvent(subject, scope, "conversation.created", conversation, contact, now)])
  }
  return { message_id: cmd.message_id, status: row?.status ?? "queued", skip_reason: skip, is_new: true } satisfies SendOutcome
})

/**
 * A broadcast's send the account cannot make any more (its channel removed, its template unregistered since the
 * broadcast was checked at send): recorded as skipped with the refusal's code as reason, so the recipient has its
 * answer and the broadcast settles; a refusal answered to nobody would leave it waiting for a message that never is.
 */
const recordUnsendable = Effect.fn("MessageActor.recordUnsendable")(function*(cmd: SendCommand & { readonly broadcast_id: string }, e: SendRefused) {
  const contact = yield* loadRecipients(cmd.contact_id)
  const reason = e.code.toLowerCase()
  const now = (yield* DateTime.nowAsDate).toISOString()
  yield* insertMessages({
    id: cmd.message_id, contact_id: cmd.contact_id, conversation_id: null, channel: cmd.channel, direction: "outbound",
    category: cmd.category ?? null, origin: cmd.origin, hotel_id: cmd.hotel_id ?? null,
    to_address: contact === undefined ? null : addressOf(contact, cmd.channel), from_address: null,
    template_name: cmd.template?.name ?? null, template_language: cmd.template?.language ?? null,
    template_parameters: cmd.template === undefined ? null : cmd.template.parameters ?? [],
    subject: cmd.subject ?? null, body_text: cmd.text ?? null, body_html: cmd.html ?? null,
    status: "skipped", skip_reason: reason, provider_message_id: null, journey_run_id: null, step_id: null,
    broadcast_id: cmd.broadcast_id, not_before: null, hold_namespace: null, created_at: now
  })
  return { message_id: cmd.message_id, status: "skipped", skip_reason: reason, is_new: true } satisfies SendOutcome
})

/**
 * One send through the gates (see sendChecked). A broadcast's send refused for what the account lacks is recorded as
 * skipped instead (recordUnsendable); an unknown contact stays a refusal (a broadcast's recipients are contacts).
 */
export const send = (
  cmd: SendCommand
): Effect.Effect<SendOutcome, SendRefused | DatabaseFailure, Actor.ActorTransaction | Actor.GroupTransaction | Actor.ActorServices> =>
  sendChecked(cmd).pipe(Effect.catchTag("SendRefused", (e): Effect.Effect<SendOutcome, SendRefused | DatabaseFailure, Actor.GroupTransaction> => {
    const broadcastId = cmd.broadcast_id
    return broadcastId !== undefined && e.status === 422 ? recordUnsendable({ ...cmd, broadcast_id: broadcastId }, e) : Effect.fail(e)
  }))
