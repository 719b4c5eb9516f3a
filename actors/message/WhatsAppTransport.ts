import { Context, Effect, Layer } from "effect"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { SendFailure } from "./SendFailure.ts"

/** A Cloud API message body: a template with its body parameters, or a free-form text reply. */
export type WhatsAppBody =
  | { readonly type: "template"; readonly name: string; readonly language: string; readonly parameters: ReadonlyArray<string> }
  | { readonly type: "text"; readonly text: string }

export interface OutgoingWhatsApp {
  readonly phoneNumberId: string
  readonly accessToken: string
  /** E.164 with or without the plus; the API takes digits. */
  readonly to: string
  readonly body: WhatsAppBody
  /** Our message id, echoed back in every status webhook as `biz_opaque_callback_data`. */
  readonly callbackData: string
}

/** Errors that say the number cannot receive WhatsApp messages: the address is suppressed. */
const UNREACHABLE = new Set(["131026"])
/** Connection failures that happen before a request is written: nothing can have been sent. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"])

export const requestBody = (m: OutgoingWhatsApp) => ({
  messaging_product: "whatsapp",
  recipient_type: "individual",
  to: m.to.replace(/^\+/, ""),
  biz_opaque_callback_data: m.callbackData,
  ...(m.body.type === "template"
    ? {
      type: "template",
      template: {
        name: m.body.name,
        language: { code: m.body.language },
        ...(m.body.parameters.length === 0
          ? {}
          : { components: [{ type: "body", parameters: m.body.parameters.map((text) => ({ type: "text", text })) }] })
      }
    }
    : { type: "text", text: { body: m.body.text, preview_url: false } })
})

const retryAfterMs = (h: string | null) => {
  const s = h === null ? NaN : Number(h)
  return Number.isFinite(s) && s >= 0 ? s * 1000 : undefined
}

/** What an answer that is not 2xx means: 429 and 5xx are temporary, other 4xx permanent (401: the token, fixable). */
export const classifyAnswer = (status: number, body: unknown, retryAfter: string | null): SendFailure => {
  const error = (body as { error?: { code?: number; message?: string; error_data?: { details?: string } } } | null)?.error
  const code = error?.code === undefined ? `HTTP_${status}` : String(error.code)
  const message = error?.error_data?.details ?? error?.message ?? `HTTP ${status}`
  const after = retryAfterMs(retryAfter)
  if (status === 429 || status >= 500 || status === 401) {
    return new SendFailure({ kind: "temporary", code, message, ...(after === undefined ? {} : { retryAfterMs: after }) })
  }
  return new SendFailure({ kind: "permanent", code, message, hardBounce: UNREACHABLE.has(code) })
}

const classifyThrown = (e: unknown): SendFailure => {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  const code = err.cause?.code ?? err.name ?? "FETCH_ERROR"
  const message = err.cause?.message ?? err.message ?? String(e)
  return new SendFailure({ kind: NOT_SENT.has(code) ? "temporary" : "unknown", code, message })
}

/** WhatsApp Business Cloud API: `POST {GEP_WHATSAPP_API_URL}/{phone_number_id}/messages` with the number's token. */
export class WhatsAppTransport extends Context.Service<WhatsAppTransport, {
  readonly send: (m: OutgoingWhatsApp) => Effect.Effect<{ readonly wamid: string }, SendFailure>
}>()("app/message/WhatsAppTransport") {
  static readonly layer = Layer.effect(WhatsAppTransport, Effect.gen(function*() {
    const config = yield* MessagingConfig
    const base = config.whatsAppApiUrl.replace(/\/+$/, "")
    return WhatsAppTransport.of({
      send: Effect.fn("WhatsAppTransport.send")(function*(m: OutgoingWhatsApp) {
        const response = yield* Effect.tryPromise({
          try: (signal) => fetch(`${base}/${encodeURIComponent(m.phoneNumberId)}/messages`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${m.accessToken}` },
            body: JSON.stringify(requestBody(m)),
            signal: AbortSignal.any([signal, AbortSignal.timeout(config.sendTimeoutMs)])
          }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.json().catch(() => null) as unknown })),
          catch: classifyThrown
        })
        if (response.status < 200 || response.status >= 300) return yield* Effect.fail(classifyAnswer(response.status, response.body, response.retryAfter))
        const wamid = (response.body as { messages?: Array<{ id?: string }> } | null)?.messages?.[0]?.id
        // Accepted without an id to reconcile by: the status webhooks still carry our callback data.
        return { wamid: wamid ?? "" }
      })
    })
  }))
}
