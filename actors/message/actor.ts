import { Effect } from "effect"
import * as Actor from "../runtime/Actor.ts"
import { loadContactSummaries } from "../shared/identity.ts"
import { conversationEvent } from "./events.ts"
import { type CloseConversation, MessageProtocol, NotFoundInTenant, type OptOutCommand } from "./protocol.ts"
import { inbound, status } from "./reports.ts"
import { closeConversation, recordOptOut } from "./repository.ts"
import { send } from "./send.ts"

/** Closes a conversation on request (an already closed one answers as it is, announcing nothing again). */
const close = Effect.fn("MessageActor.close")(function*(cmd: typeof CloseConversation.Type) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const row = yield* Actor.query((tx) => closeConversation(tx, scope, cmd.contact_id, cmd.conversation_id))
  if (!row) return yield* Effect.fail(new NotFoundInTenant({ field: "id", message: `No conversation with id ${JSON.stringify(cmd.conversation_id)}` }))
  const closedAt = new Date(row.closed_at!).toISOString()
  if (row.was_open) {
    const summaries = yield* Actor.query((tx) => loadContactSummaries(tx, [row.contact_id]))
    yield* Actor.emit([conversationEvent(subject, scope, "conversation.closed", { ...row, status: "closed" }, summaries.get(row.contact_id), closedAt)])
  }
  return { conversation_id: row.id, closed_at: closedAt, was_open: row.was_open }
})

/** A contact's opt-out from a channel's marketing, from the API or the unsubscribe link. */
const optOut = Effect.fn("MessageActor.optOut")(function*(cmd: typeof OptOutCommand.Type) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  const at = yield* Actor.query((tx) => recordOptOut(tx, scope, cmd.contact_id, cmd.channel, cmd.source, envelopeId))
  if (at === undefined) return yield* Effect.fail(new NotFoundInTenant({ field: "id", message: `No contact with id ${JSON.stringify(cmd.contact_id)}` }))
  return { contact_id: cmd.contact_id, channel: cmd.channel, opted_out_at: new Date(at).toISOString() }
})

/**
 * The message actor: sends through the gates, WhatsApp's reports, conversation closes and opt-outs. Its handlers are
 * per envelope (a send reads contact, channel and conversation before it writes), so it applies four groups at once.
 */
export const MessageActor = Actor.make(MessageProtocol, { send, status, inbound, close, optOut }, { minLanes: 4 })
