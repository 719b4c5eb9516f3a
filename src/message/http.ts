import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { MessageProtocol, type SendRefused } from "../../actors/message/protocol.ts"
import { Database, withTenant } from "../../core/db/Database.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, ok } from "../http/answers.ts"
import { pageRequest } from "../http/paging.ts"
import { contactExists, contactMessages, conversation, conversationHeader } from "./read.ts"
import { listMessages } from "./list.ts"
import { messageFilters } from "./listFilters.ts"

const refused = (e: SendRefused) =>
  e.status === 404
    ? NotFound.of(e.message, { [e.field]: ["not found in this account"] })
    : Unprocessable.of(e.code, e.message, { [e.field]: [e.message] })

const contactNotFound = (id: string) => NotFound.of(`No contact with id ${JSON.stringify(id)}`, { id: ["not found"] })
const conversationNotFound = (id: string) => NotFound.of(`No conversation with id ${JSON.stringify(id)}`, { id: ["not found"] })

export const MessagesLive = HttpApiBuilder.group(Api, "messages", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database
    const actors = yield* ActorClient
    return handlers
      .handle("send", Effect.fn("Messages.send")(function*({ payload: r, headers }) {
        const principal = yield* CurrentPrincipal
        const key = headers["idempotency-key"]
        // A retry with the same Idempotency-Key lands on the first message (same id), and is answered with it.
        const messageId = key === undefined ? randomUUID() : deterministicId(`message:${principal.tenant_id}:${principal.sandbox}:${key}`)
        const outcome = yield* answered(actors.for(MessageProtocol, principal).send({
          message_id: messageId,
          contact_id: r.contact_id,
          channel: r.channel,
          category: r.category,
          hotel_id: r.hotel_id,
          template: r.template,
          subject: r.subject,
          text: r.text,
          html: r.html,
          origin: r.channel === "whatsapp" && r.template === undefined ? "reply" : "api"
        })).pipe(Effect.catchTag("SendRefused", (e) => Effect.fail(refused(e))))
        return { success: true as const, data: { message_id: outcome.message_id, status: outcome.status as "queued", skip_reason: outcome.skip_reason } }
      }))
      .handle("list", Effect.fn("Messages.list")(function*({ query }) {
        const principal = yield* CurrentPrincipal
        const { limit: _l, cursor: _c, ...filters } = query
        const page = yield* pageRequest(query)
        const f = yield* messageFilters(filters)
        return ok(yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => listMessages(tx, principal, f, page))))
      }))
      .handle("contactMessages", Effect.fn("Messages.contactMessages")(function*({ params, query }) {
        const principal = yield* CurrentPrincipal
        const page = yield* pageRequest(query)
        if (query.channel !== undefined && query.channel !== "email" && query.channel !== "whatsapp") {
          return yield* ValidationFailed.of("Invalid request: channel must be email or whatsapp", { channel: ["must be one of: email, whatsapp"] })
        }
        const messages = yield* db.query((sql) => withTenant(sql, principal.tenant_id, async (tx) =>
          (await contactExists(tx, principal, params.id)) ? contactMessages(tx, params.id, { ...page, channel: query.channel }) : undefined))
        if (messages === undefined) return yield* contactNotFound(params.id)
        return ok(messages)
      }))
      .handle("conversation", Effect.fn("Messages.conversation")(function*({ params }) {
        const principal = yield* CurrentPrincipal
        const found = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => conversation(tx, principal, params.id)))
        if (found === undefined) return yield* conversationNotFound(params.id)
        return { success: true as const, data: found }
      }))
      .handle("closeConversation", Effect.fn("Messages.closeConversation")(function*({ params }) {
        const principal = yield* CurrentPrincipal
        // The conversation's header only (not its messages): the contact names the actor, and the answer is the header.
        const header = () => db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => conversationHeader(tx, principal, params.id)))
        const found = yield* header()
        if (found === undefined) return yield* conversationNotFound(params.id)
        // Keyed by the contact, like every send to them: a close and a send apply in the order they arrived.
        yield* answered(actors.for(MessageProtocol, principal).close({ contact_id: found.contact_id, conversation_id: found.id })).pipe(
          Effect.catchTag("NotFoundInTenant", () => Effect.fail(conversationNotFound(params.id))))
        return { success: true as const, data: (yield* header())! }
      }))
      .handle("optOut", Effect.fn("Messages.optOut")(function*({ params, payload }) {
        const principal = yield* CurrentPrincipal
        const exists = yield* db.query((sql) => withTenant(sql, principal.tenant_id, (tx) => contactExists(tx, principal, params.id)))
        if (!exists) return yield* contactNotFound(params.id)
        const data = yield* answered(actors.for(MessageProtocol, principal).optOut({
          contact_id: params.id, channel: payload.channel, source: payload.source ?? "api"
        })).pipe(Effect.catchTag("NotFoundInTenant", () => Effect.fail(contactNotFound(params.id))))
        return { success: true as const, data }
      }))
  }))
