import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { loadContactSummaries, resolveClaims } from "../shared/identity.ts"
import { conversationEvent, messageEvent, type MessageEventType } from "./events.ts"
import type { InboundReport, StatusReport } from "./protocol.ts"
import { applyStatus, recordOptOut, suppress, touchConversation } from "./repository.ts"
import { insertMessages } from "./sendStatements.ts"
import { isStopKeyword } from "./state.ts"

/** WhatsApp error codes that say the number cannot receive WhatsApp messages at all: the number is suppressed. */
const UNREACHABLE_NUMBER_CODES = new Set(["131026"])

/**
 * A status WhatsApp reported for a message we sent. Applied only when it moves the message on (a late `delivered`
 * after `read` is history only) and then announced as `message.<status>`; a status for a message that is not ours
 * (another system sharing the number) changes nothing.
 */
export const status = Effect.fn("MessageActor.status")(function*(r: StatusReport) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const result = yield* Actor.query((tx) => applyStatus(tx, scope, r))
  if (result === undefined) return { message_id: null, applied: false }
  const { message, applied } = result
  if (applied) {
    if (r.status === "failed" && r.error_code !== undefined && UNREACHABLE_NUMBER_CODES.has(r.error_code)) {
      yield* Actor.query((tx) => suppress(tx, scope, "whatsapp", r.phone, `whatsapp_error_${r.error_code}`, message.id))
    }
    const summaries = yield* Actor.query((tx) => loadContactSummaries(tx, [message.contact_id]))
    yield* Actor.emit([messageEvent(subject, scope, `message.${r.status}` as MessageEventType, message, summaries.get(message.contact_id), r.occurred_at)])
  }
  return { message_id: message.id, applied }
})

/**
 * A guest's WhatsApp message: the number resolves to its contact (a new number becomes a contact), the message opens
 * or continues the conversation and the 24-hour service window, and a STOP-like answer withdraws WhatsApp marketing
 * consent for good. WhatsApp's retries of the same message (same wamid) record nothing twice.
 */
export const inbound = Effect.fn("MessageActor.inbound")(function*(r: InboundReport) {
  const { scope, subject, target } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  const [known] = yield* Actor.query((tx) => tx`SELECT id FROM messages WHERE tenant_id = ${scope.tenant_id}
    AND sandbox = ${scope.sandbox} AND channel = 'whatsapp' AND provider_message_id = ${r.provider_message_id}`)
  if (known) return { message_id: known.id as string, applied: false }

  const [resolved] = yield* Actor.query((tx) => resolveClaims(tx, scope, [{
    profile: { phone: r.phone },
    source: "whatsapp:inbound",
    envelopeId,
    updateIfExists: false,
    insertDefaults: r.profile_name === undefined ? {} : { first_name: r.profile_name }
  }]))
  const contactId = resolved!.contact_id
  const conversation = yield* Actor.query((tx) => touchConversation(tx, scope, contactId, "whatsapp", randomUUID(), true, r.occurred_at, target.namespace))
  const message = yield* insertMessages({
    id: randomUUID(), contact_id: contactId, conversation_id: conversation.id, channel: "whatsapp", direction: "inbound",
    category: null, origin: "guest", hotel_id: null, to_address: null, from_address: r.phone, template_name: null,
    template_language: null, template_parameters: null, subject: null, body_text: r.text ?? null, body_html: null,
    status: "received", skip_reason: null, provider_message_id: r.provider_message_id, journey_run_id: null, step_id: null,
    broadcast_id: null, not_before: null, hold_namespace: null, created_at: r.occurred_at
  })
  if (isStopKeyword(r.text)) yield* Actor.query((tx) => recordOptOut(tx, scope, contactId, "whatsapp", "whatsapp_reply", envelopeId))
  const summaries = yield* Actor.query((tx) => loadContactSummaries(tx, [contactId]))
  const contact = summaries.get(contactId)
  yield* Actor.emit([
    ...contactChangeCommands(subject, { ...scope, occurred_at: r.occurred_at }, [resolved!], summaries, null),
    ...(conversation.is_new ? [conversationEvent(subject, scope, "conversation.created", conversation, contact, r.occurred_at)] : []),
    ...(message ? [messageEvent(subject, scope, "message.received", message, contact, r.occurred_at)] : [])
  ])
  return { message_id: message?.id ?? null, applied: message !== undefined }
})
