import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InternalError, NotFound, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import {
  ConversationResponse, MessagesPage, OptOutRequest, OptOutResponse, SendMessageAccepted, SendMessageRequest, StoredConversation
} from "./message.ts"
import { BodyLimit, MiB } from "./limits.ts"
import { Audited, Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"
import { ok, PageQuery } from "./list.ts"

const filter = (description: string) => Schema.optionalKey(SafeString.annotate({ description }))

/** The filters of the tenant-wide message list (src/message/listFilters.ts checks each, naming it). */
const MessageListQuery = {
  ...PageQuery,
  channel: filter("email or whatsapp"),
  status: filter("skipped, queued, sent, delivered, read, failed or received (the current status)"),
  direction: filter("outbound or inbound"),
  template: filter("a WhatsApp template's name, exactly"),
  journey_id: filter("messages sent by runs of this journey"),
  broadcast_id: filter("messages sent for this broadcast"),
  hotel_id: filter("messages sent for this hotel"),
  contact_id: filter("one contact's messages"),
  from: filter("created at or after: a date-time with offset, or a date (YYYY-MM-DD, from the start of that UTC day)"),
  to: filter("created before: a date-time with offset, or a date (YYYY-MM-DD, up to the end of that UTC day)")
}


export const MessagesGroup = HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.post("send", "/api/v1/messages", {
      payload: SendMessageRequest,
      headers: { "idempotency-key": Schema.optionalKey(SafeString.annotate({ description: "a retry with the same key answers the first message" })) },
      success: ok(SendMessageAccepted).pipe(HttpApiSchema.status(202)).annotate({
        description: "Recorded: `queued` (it leaves through the channel's provider) or `skipped` with the reason"
      }),
      error: [ValidationFailed, NotFound, Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "guests:write")
      // An email's html may hold 500,000 characters.
      .annotate(BodyLimit, 1 * MiB)
      .annotate(OpenApi.Summary, "Send one contact an email or a WhatsApp template (or a reply inside the 24-hour window), through the consent gates")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/messages", {
      query: MessageListQuery,
      success: MessagesPage,
      error: ValidationFailed
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "The account's messages across contacts, newest first, with their status history and what a provider error means; filters by channel, status, template, journey, broadcast, hotel, contact and time (limit 1-100, default 25)")
  )
  .add(
    HttpApiEndpoint.get("contactMessages", "/api/v1/contacts/:id/messages", {
      params: { id: SafeString },
      query: {
        cursor: Schema.optionalKey(SafeString),
        limit: Schema.optionalKey(SafeString),
        channel: Schema.optionalKey(SafeString)
      },
      success: MessagesPage,
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read")
      .annotate(Audited, { action: "contact.viewed", contactParam: "id", staffOnly: true })
      .annotate(OpenApi.Summary, "A contact's messages, newest first, with their status history; `next_cursor` pages on (limit 1-100, default 25)")
  )
  .add(
    HttpApiEndpoint.get("conversation", "/api/v1/conversations/:id", {
      params: { id: SafeString },
      success: ConversationResponse,
      error: NotFound
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "One conversation with its messages in order")
  )
  .add(
    HttpApiEndpoint.post("closeConversation", "/api/v1/conversations/:id/close", {
      params: { id: SafeString },
      success: ok(StoredConversation.mapFields(({ messages: _m, ...rest }) => rest)),
      error: [NotFound, Unavailable, InternalError]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Close a conversation (announced as conversation.closed; closing a closed one changes nothing)")
  )
  .add(
    HttpApiEndpoint.post("optOut", "/api/v1/contacts/:id/opt-out", {
      params: { id: SafeString },
      payload: OptOutRequest,
      success: ok(OptOutResponse),
      error: [ValidationFailed, NotFound, Unavailable, InternalError]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Withdraw a contact's marketing consent on a channel, for good: no later feed re-subscribes them")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
