import { Context, Effect, Layer } from "effect"
import nodemailer from "nodemailer"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import type { OutgoingEmail } from "../../core/message/OutgoingEmail.ts"
import { SendFailure } from "./SendFailure.ts"

/** `<message-id@sender-domain>`: a resend after a crash carries the same Message-ID, so it is recognisable as one. */
export const messageIdHeader = (messageId: string, fromAddress: string) =>
  `<${messageId}@${fromAddress.split("@")[1] ?? "localhost"}>`

/** What an SMTP failure means for the send: 5xx replies are permanent, 4xx replies and broken connections are not. */
export const classifySmtpError = (e: unknown): SendFailure => {
  const err = e as { responseCode?: number; code?: string; message?: string; response?: string }
  const code = err.responseCode
  const message = String(err.response ?? err.message ?? e)
  if (code !== undefined && code >= 500) return new SendFailure({ kind: "permanent", code: String(code), message, hardBounce: [550, 551, 553].includes(code) })
  return new SendFailure({ kind: "temporary", code: code === undefined ? err.code ?? "SMTP_ERROR" : String(code), message })
}

/** Email out through an SMTP relay (GEP_SMTP_URL) over a pool of connections; TLS when the URL says `smtps:`. */
export class EmailTransport extends Context.Service<EmailTransport, {
  readonly send: (mail: OutgoingEmail) => Effect.Effect<{ readonly response: string }, SendFailure>
}>()("app/message/EmailTransport") {
  static readonly layer = Layer.effect(EmailTransport, Effect.gen(function*() {
    const config = yield* MessagingConfig
    if (config.smtpUrl === "") {
      yield* Effect.logWarning("GEP_SMTP_URL is not set: email cannot leave (sends are retried, then recorded as failed)")
      return EmailTransport.of({
        send: () => Effect.fail(new SendFailure({ kind: "temporary", code: "SMTP_NOT_CONFIGURED", message: "GEP_SMTP_URL is not set" }))
      })
    }
    const transport = yield* Effect.acquireRelease(
      Effect.sync(() => nodemailer.createTransport({
        url: config.smtpUrl, pool: true, maxConnections: 8, maxMessages: 500,
        connectionTimeout: config.sendTimeoutMs, greetingTimeout: config.sendTimeoutMs, socketTimeout: config.sendTimeoutMs
      } as never)),
      (t) => Effect.sync(() => t.close())
    )
    return EmailTransport.of({
      send: Effect.fn("EmailTransport.send")(function*(mail: OutgoingEmail) {
        const info = yield* Effect.tryPromise({
          try: () => transport.sendMail({
            messageId: messageIdHeader(mail.messageId, mail.from.address),
            from: mail.from.name === null ? mail.from.address : { name: mail.from.name, address: mail.from.address },
            to: mail.to,
            ...(mail.replyTo === null ? {} : { replyTo: mail.replyTo }),
            subject: mail.subject,
            ...(mail.text === null ? {} : { text: mail.text }),
            ...(mail.html === null ? {} : { html: mail.html }),
            headers: mail.headers
          }),
          catch: classifySmtpError
        })
        return { response: String((info as { response?: string }).response ?? "") }
      })
    })
  }))
}
