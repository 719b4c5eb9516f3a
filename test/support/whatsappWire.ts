import { createHmac, randomBytes } from "node:crypto"

// The WhatsApp Business Cloud API's wire shapes, as the test stub (whatsappStub.ts) answers and posts them.
// Checked against Meta's "Status messages webhook reference" and "Error codes" pages, WhatsApp/WhatsApp-Nodejs-SDK
// src/types/webhooks.ts and captured webhook payloads (see the notes at each shape).

export type StatusName = "sent" | "delivered" | "read" | "failed"
export type TemplateCategory = "marketing" | "utility" | "authentication"

export interface WhatsAppErrorDetail {
  readonly code: number
  readonly title: string
  readonly message?: string
  readonly details?: string
}

/** `X-Hub-Signature-256` value: `sha256=` + hex HMAC-SHA256 of the raw body with the app secret. */
export const signWhatsAppBody = (appSecret: string, rawBody: string | Buffer) =>
  `sha256=${createHmac("sha256", appSecret).update(rawBody).digest("hex")}`

/** Message ids look like `wamid.HBgL…=`: base64, so they carry `+`, `/` and `=` a client must not mangle. */
export const newWamid = () => `wamid.${randomBytes(30).toString("base64")}`

export const digitsOf = (phone: string) => phone.replace(/\D/g, "")

export const unixSeconds = (at: number = Date.now()) => String(Math.floor(at / 1000))

/**
 * A Graph API error answer. The title travels inside `message` as `(#code) title` (Meta: "Code titles, which do not
 * have a dedicated property in API error response payloads, are included as part of the message value").
 */
export const graphError = (error: WhatsAppErrorDetail & { type?: string; subcode?: number }) => ({
  error: {
    message: error.message ?? `(#${error.code}) ${error.title}`,
    type: error.type ?? "OAuthException",
    code: error.code,
    ...(error.subcode === undefined ? {} : { error_subcode: error.subcode }),
    ...(error.details === undefined ? {} : { error_data: { messaging_product: "whatsapp", details: error.details } }),
    fbtrace_id: randomBytes(9).toString("base64url")
  }
})

/** Default answers for `failNext(n, status)` when the test gives no body (HTTP status → Meta error). */
export const defaultFailure = (status: number) =>
  status === 429
    ? graphError({ code: 130429, title: "Rate limit hit", details: "Cloud API message throughput has been reached." })
    : status === 401
      ? graphError({ code: 190, title: "Invalid OAuth access token - Cannot parse access token", message: "Invalid OAuth access token - Cannot parse access token" })
      : status === 503
        ? graphError({ code: 2, title: "Service temporarily unavailable" })
        : status >= 500
          ? graphError({ code: 131000, title: "Something went wrong", details: "Message failed to send because of an unknown error." })
          : graphError({ code: 100, title: "Invalid parameter" })

/** The webhook envelope around one `value` (Meta: one entry per WABA, `changes[].field` = "messages"). */
export const webhookEnvelope = (
  number: { readonly wabaId: string; readonly displayPhoneNumber: string; readonly phoneNumberId: string },
  value: Record<string, unknown>
) => ({
  object: "whatsapp_business_account",
  entry: [{
    id: number.wabaId,
    changes: [{
      value: {
        messaging_product: "whatsapp",
        metadata: { display_phone_number: number.displayPhoneNumber, phone_number_id: number.phoneNumberId },
        ...value
      },
      field: "messages"
    }]
  }]
})

export interface StatusInput {
  readonly wamid: string
  readonly status: StatusName
  readonly recipientId: string
  readonly timestamp?: string
  readonly bizOpaqueCallbackData?: string
  /** Pricing category: a template's category, `service` for free-form replies. */
  readonly category?: TemplateCategory | "service"
  /** Only for `failed`. */
  readonly errors?: ReadonlyArray<WhatsAppErrorDetail>
  /** Replaces the generated conversation object (null: leave it out). */
  readonly conversation?: Record<string, unknown> | null
  /** Replaces the generated pricing object (null: leave it out). */
  readonly pricing?: Record<string, unknown> | null
}

/**
 * One entry of `value.statuses[]`. Following captured payloads: `sent` carries conversation (with
 * `expiration_timestamp`) and pricing, `delivered` carries them without the expiration, `read` carries neither,
 * `failed` carries `errors[]` (`code`, `title`, `message`, `error_data.details`) and no pricing.
 * `biz_opaque_callback_data` comes back on every status of a message sent with it.
 */
export const statusObject = (input: StatusInput) => {
  const category = input.category ?? "utility"
  const timestamp = input.timestamp ?? unixSeconds()
  const conversationId = createHmac("sha256", "conversation").update(input.recipientId).digest("hex").slice(0, 32)
  const generatedConversation =
    input.status === "sent"
      ? { id: conversationId, expiration_timestamp: String(Number(timestamp) + 86_400), origin: { type: category } }
      : input.status === "delivered" ? { id: conversationId, origin: { type: category } } : null
  const generatedPricing =
    input.status === "sent" || input.status === "delivered"
      ? { billable: category !== "service", pricing_model: "PMP", category, type: "regular" }
      : null
  const conversation = input.conversation === undefined ? generatedConversation : input.conversation
  const pricing = input.pricing === undefined ? generatedPricing : input.pricing
  return {
    id: input.wamid,
    status: input.status,
    timestamp,
    recipient_id: input.recipientId,
    ...(input.bizOpaqueCallbackData === undefined ? {} : { biz_opaque_callback_data: input.bizOpaqueCallbackData }),
    ...(conversation === null ? {} : { conversation }),
    ...(pricing === null ? {} : { pricing }),
    ...(input.status === "failed"
      ? {
        errors: (input.errors ?? [{ code: 131026, title: "Message undeliverable" }]).map((e) => ({
          code: e.code,
          title: e.title,
          message: e.message ?? e.title,
          error_data: { details: e.details ?? e.title }
        }))
      }
      : {})
  }
}

export interface InboundInput {
  readonly from: string
  readonly text: string
  readonly name?: string
  readonly id?: string
  readonly timestamp?: string
}

/** `value.contacts` + `value.messages` of a guest's text message. */
export const inboundValue = (input: InboundInput, id: string) => ({
  contacts: [{ profile: { name: input.name ?? "Guest" }, wa_id: digitsOf(input.from) }],
  messages: [{
    from: digitsOf(input.from),
    id,
    timestamp: input.timestamp ?? unixSeconds(),
    type: "text",
    text: { body: input.text }
  }]
})
