import { Schema } from "effect"

// The WhatsApp Business Cloud API webhook envelope (Meta's shape, `field: "messages"`), as far as we read it: unknown
// fields are ignored, what we read must have the documented type.

const Digits = Schema.String.check(Schema.makeFilter((s: string) => /^\d{6,15}$/.test(s) || "must be a phone number in digits"))
const UnixSeconds = Schema.String.check(Schema.makeFilter((s: string) => /^\d{1,12}$/.test(s) || "must be a unix time in seconds"))

export const WhatsAppStatus = Schema.Struct({
  id: Schema.String,
  status: Schema.Literals(["sent", "delivered", "read", "failed", "deleted", "warning"]),
  timestamp: UnixSeconds,
  recipient_id: Digits,
  biz_opaque_callback_data: Schema.optionalKey(Schema.String),
  errors: Schema.optionalKey(Schema.Array(Schema.Struct({
    code: Schema.Number,
    title: Schema.optionalKey(Schema.String),
    message: Schema.optionalKey(Schema.String),
    error_data: Schema.optionalKey(Schema.Struct({ details: Schema.optionalKey(Schema.String) }))
  })))
})
export type WhatsAppStatus = typeof WhatsAppStatus.Type

export const WhatsAppInboundMessage = Schema.Struct({
  from: Digits,
  id: Schema.String,
  timestamp: UnixSeconds,
  type: Schema.String,
  text: Schema.optionalKey(Schema.Struct({ body: Schema.String })),
  button: Schema.optionalKey(Schema.Struct({ text: Schema.optionalKey(Schema.String), payload: Schema.optionalKey(Schema.String) })),
  interactive: Schema.optionalKey(Schema.Unknown)
})
export type WhatsAppInboundMessage = typeof WhatsAppInboundMessage.Type

export const WhatsAppChange = Schema.Struct({
  field: Schema.String,
  value: Schema.Struct({
    messaging_product: Schema.optionalKey(Schema.String),
    metadata: Schema.optionalKey(Schema.Struct({ phone_number_id: Schema.String, display_phone_number: Schema.optionalKey(Schema.String) })),
    contacts: Schema.optionalKey(Schema.Array(Schema.Struct({
      wa_id: Schema.optionalKey(Schema.String),
      profile: Schema.optionalKey(Schema.Struct({ name: Schema.optionalKey(Schema.String) }))
    }))),
    statuses: Schema.optionalKey(Schema.Array(WhatsAppStatus)),
    messages: Schema.optionalKey(Schema.Array(WhatsAppInboundMessage))
  })
})

export const WhatsAppEnvelope = Schema.Struct({
  object: Schema.Literal("whatsapp_business_account"),
  entry: Schema.Array(Schema.Struct({ id: Schema.optionalKey(Schema.String), changes: Schema.Array(WhatsAppChange) }))
})
export type WhatsAppEnvelope = typeof WhatsAppEnvelope.Type
