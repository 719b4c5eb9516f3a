import { Schema } from "effect"
import { MessageChannels, SendCategories, TemplateRef } from "../../schemas/message.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
const Channel = Schema.Literals(MessageChannels)

/**
 * One send through the gated path: from the API, a journey step, a reply inside the service window, a newsletter
 * confirmation, or a broadcast's recipient.
 */
export const SendCommand = Schema.Struct({
  /** Chosen by the caller and deterministic where a retry must find the same message (journey run + step). */
  message_id: Schema.String,
  contact_id: Schema.String,
  channel: Channel,
  category: opt(Schema.Literals(SendCategories)),
  hotel_id: opt(Schema.String),
  template: opt(TemplateRef),
  subject: opt(Schema.String),
  text: opt(Schema.String),
  html: opt(Schema.String),
  origin: Schema.Literals(["api", "journey", "reply", "newsletter", "broadcast"]),
  /**
   * Gate the send as marketing whatever its category: a journey started by a website event needs marketing consent
   * for every WhatsApp template it sends (spec, website events rule 5).
   */
  gate_as: opt(Schema.Literal("marketing")),
  journey_run_id: opt(Schema.String),
  step_id: opt(Schema.String),
  /**
   * A broadcast's message (its id derived from broadcast, contact and channel): recorded with the broadcast and decided
   * at send time against it (actors/message/broadcastSend.ts): skipped with a reason, or queued, held by quiet hours.
   */
  broadcast_id: opt(Schema.String)
})
export type SendCommand = typeof SendCommand.Type

export const SendOutcome = Schema.Struct({
  message_id: Schema.String,
  status: Schema.String,
  skip_reason: Schema.NullOr(Schema.String),
  /** False: this message id was already recorded (a retry); the stored outcome is answered. */
  is_new: Schema.Boolean
})
export type SendOutcome = typeof SendOutcome.Type

/** A send refused before anything was recorded: the edge answers `status` in the core shape naming `field`. */
export class SendRefused extends Schema.TaggedError<SendRefused>()("SendRefused", {
  status: Schema.Literals([404, 422]),
  code: Schema.String,
  field: Schema.String,
  message: Schema.String
}) {}

/** What the WhatsApp Cloud API reported about one message we sent (a status webhook item). */
export const StatusReport = Schema.Struct({
  kind: Schema.Literal("status"),
  /** The recipient's number in digits (WhatsApp's `recipient_id`): the actor key. */
  phone: Schema.String,
  provider_message_id: Schema.String,
  /** `biz_opaque_callback_data`: our message id, which finds a message whose send outcome was never recorded. */
  callback_data: opt(Schema.String),
  status: Schema.Literals(["sent", "delivered", "read", "failed"]),
  occurred_at: Schema.String,
  error_code: opt(Schema.String),
  error_message: opt(Schema.String)
})
export type StatusReport = typeof StatusReport.Type

/** A guest's message to the tenant's WhatsApp number. */
export const InboundReport = Schema.Struct({
  kind: Schema.Literal("inbound"),
  phone: Schema.String,
  provider_message_id: Schema.String,
  occurred_at: Schema.String,
  type: Schema.String,
  text: opt(Schema.String),
  profile_name: opt(Schema.String)
})
export type InboundReport = typeof InboundReport.Type

export const ReportOutcome = Schema.Struct({
  message_id: Schema.NullOr(Schema.String),
  applied: Schema.Boolean
})

export const CloseConversation = Schema.Struct({ contact_id: Schema.String, conversation_id: Schema.String })
export const ConversationClosed = Schema.Struct({ conversation_id: Schema.String, closed_at: Schema.String, was_open: Schema.Boolean })

export const OptOutCommand = Schema.Struct({ contact_id: Schema.String, channel: Channel, source: Schema.String })
export const OptedOut = Schema.Struct({ contact_id: Schema.String, channel: Schema.String, opted_out_at: Schema.String })

export class NotFoundInTenant extends Schema.TaggedError<NotFoundInTenant>()("NotFoundInTenant", {
  field: Schema.String,
  message: Schema.String
}) {}

/**
 * The message actor. Sends, closes and opt-outs are keyed by contact (`contact:<id>`); what WhatsApp reports is keyed
 * by the guest's number (`wa:<digits>`), which is all a webhook carries: a guest's messages and the statuses of what
 * was sent to them apply in the order they arrived.
 */
export const MessageProtocol = ActorProtocol.make("message", {
  key: (p) => ("kind" in p ? `wa:${p.phone}` : `contact:${p.contact_id}`),
  messages: {
    send: ActorProtocol.message({ payload: SendCommand, success: SendOutcome, error: SendRefused }),
    status: ActorProtocol.message({ payload: StatusReport, success: ReportOutcome }),
    inbound: ActorProtocol.message({ payload: InboundReport, success: ReportOutcome }),
    close: ActorProtocol.message({ payload: CloseConversation, success: ConversationClosed, error: NotFoundInTenant }),
    optOut: ActorProtocol.message({ payload: OptOutCommand, success: OptedOut, error: NotFoundInTenant })
  }
})
