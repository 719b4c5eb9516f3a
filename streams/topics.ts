import { Schema } from "effect"
import { decode } from "./msgpack.ts"

// Every payload that travels on a stream or is kept encoded for one (the outbox's batch rows, the inbox's answers),
// declared once with its Schema: a producer builds its outbox messages through its topic, or encodes a value of the
// topic's type (its type checked either way), a consumer decodes through
// it (its shape checked, a message off it refused with an error naming the field instead of cast and trusted). The
// consumers' messages: `in.*` envelopes and their replies, `evt.*` domain events, `cmd.webhook.*` commands, webhook
// delivery jobs, `cmd.message.deliver.*` commands.

/** A payload family: its Schema and the one way it is written and read. */
export interface Topic<A> {
  readonly name: string
  /** An outbox message of this topic (the relay encodes it): its payload's type checked where it is made. */
  readonly message: (id: string, subject: string, payload: A) => { readonly id: string; readonly subject: string; readonly payload: A }
  /** The value, or throws naming what is off (callers refuse the message: dead letter, or terminate it). */
  readonly decode: (bytes: Uint8Array) => A
  /** `decode` of a value already unpacked (read for its format version first, say). */
  readonly fromUnpacked: (value: unknown) => A
}

const topic = <S extends Schema.Codec<unknown, unknown>>(name: string, schema: S): Topic<S["Type"]> => {
  const decodeSync = Schema.decodeUnknownSync(schema as Schema.Codec<S["Type"], unknown>)
  return {
    name,
    message: (id, subject, payload) => ({ id, subject, payload }),
    decode: (bytes) => decodeSync(decode(bytes)),
    fromUnpacked: decodeSync
  }
}

const Scope = { tenant_id: Schema.String, sandbox: Schema.Boolean }

// ---- actors (`in.*`): the envelope and the answer ------------------------------------------------------------------

export const EnvelopeSchema = Schema.Struct({
  /** The envelope's format version (ENVELOPE_VERSION of the release that wrote it; absent before the field). */
  v: Schema.optional(Schema.Number),
  /** Unique per logical request; also the JetStream Nats-Msg-Id and the inbox key. */
  id: Schema.String,
  /** The actor type (its protocol's name), and the message's tag in its protocol. */
  actor: Schema.String,
  type: Schema.String,
  ...Scope,
  /** The actor key inside the tenant (e.g. the partner reservation id). */
  key: Schema.String,
  payload: Schema.Unknown,
  /** Core NATS subject where the waiting ingress listens; absent for fire-and-forget commands. */
  reply_to: Schema.optional(Schema.String),
  sent_at: Schema.Number
})

export const ReplyExitSchema = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Success"), value: Schema.Unknown }),
  Schema.Struct({ _tag: Schema.Literal("Failure"), error: Schema.Unknown }),
  Schema.Struct({ _tag: Schema.Literal("Rejected"), message: Schema.String }),
  Schema.Struct({ _tag: Schema.Literal("Defect"), message: Schema.String })
])

export const ReplySchema = Schema.Struct({ envelope_id: Schema.String, exit: ReplyExitSchema })

/** What travels on an ingress subject: one message for one actor key, its payload encoded by the actor's protocol. */
export type Envelope = typeof EnvelopeSchema.Type
/** The actor's answer to a synchronous request, sent after its transaction committed. */
export type Reply = typeof ReplySchema.Type
export type DomainEvent = typeof DomainEventSchema.Type

export const Envelopes = topic("envelope", EnvelopeSchema)
export const Replies = topic("reply", ReplySchema)
/** An applied envelope's answer as the inbox keeps it for redeliveries. */
export const StoredAnswers = topic("inbox answer", ReplyExitSchema)

// ---- the outbox: a batch row's messages ---------------------------------------------------------------------------

export const StoredMessageSchema = Schema.Struct({ id: Schema.String, subject: Schema.String, data: Schema.Uint8Array })
/** Every message of a group's tenant phase, in one outbox row (each keeps its own id as its Nats-Msg-Id). */
export const OutboxBatches = topic("outbox batch", Schema.Array(StoredMessageSchema))

// ---- `evt.*`: domain events ---------------------------------------------------------------------------------------

export const DomainEventSchema = Schema.Struct({
  ...Scope,
  occurred_at: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  contact_id: Schema.NullOr(Schema.String),
  hotel_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  source: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /**
   * `booking` for the reservation family's events (its booking and stay events carry our reservation id), `website`
   * for website events; absent for core events sent by partners, whose payload is theirs (a `reservation_id` in it is
   * the partner's, never taken for ours).
   */
  origin: Schema.optionalKey(Schema.Literals(["booking", "website"])),
  data: Schema.Record(Schema.String, Schema.Unknown)
})
export const DomainEvents = topic("domain event", DomainEventSchema)

// ---- `cmd.webhook.*`: webhook commands, and the delivery jobs the fan-out makes of them -----------------------------

export const WebhookCommandSchema = Schema.Struct({
  ...Scope,
  occurred_at: Schema.String,
  event_type: Schema.String,
  /** Checked against the event type's body schema when written (schemas/webhookPayloads.ts). */
  data: Schema.Unknown,
  /** Per tenant, mode and object key, set in the transaction that wrote the command (core/webhook/sequence.ts). */
  sequence: Schema.optionalKey(Schema.Number),
  /** Only this subscription gets it, whatever its event types (`webhook.test`). */
  subscription_id: Schema.optionalKey(Schema.String)
})

export const RedeliverCommandSchema = Schema.Struct({
  kind: Schema.Literal("redeliver"),
  ...Scope,
  subscription_id: Schema.String,
  trigger: Schema.Literals(["resend", "replay"]),
  /** The resend's or the replay's id: its attempts are counted apart from the event's own. */
  run_id: Schema.String,
  event_id: Schema.optionalKey(Schema.String),
  window: Schema.optionalKey(Schema.Struct({ since: Schema.String, until: Schema.String, event_types: Schema.NullOr(Schema.Array(Schema.String)) }))
})
export const WebhookCommands = topic("webhook command", Schema.Union([RedeliverCommandSchema, WebhookCommandSchema]))

export const DeliveryTriggers = ["event", "test", "resend", "replay"] as const
export const DeliveryJobSchema = Schema.Struct({
  /** Stable across attempts (the outbox row id): sent as X-Webhook-Event-Id so receivers can deduplicate retries. */
  event_id: Schema.String,
  subscription_id: Schema.String,
  ...Scope,
  event_type: Schema.String,
  /** The body, serialised once at fan-out: every attempt, resend and replay sends (and signs) the same bytes. */
  body: Schema.String,
  trigger: Schema.optionalKey(Schema.Literals(DeliveryTriggers)),
  run_id: Schema.optionalKey(Schema.String)
})
export const DeliveryJobs = topic("webhook delivery job", DeliveryJobSchema)

// ---- `cmd.message.deliver.*`: a recorded message to hand to its provider ---------------------------------------------

export const DeliverCommandSchema = Schema.Struct({ ...Scope, message_id: Schema.String, channel: Schema.Literals(["email", "whatsapp"]) })
export const DeliverCommands = topic("message deliver command", DeliverCommandSchema)
