import { Effect, Option, Redacted } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { LinkSuperseded, NewsletterProtocol } from "../../actors/newsletter/protocol.ts"
import { verifyConfirmToken } from "../../core/newsletter/confirmToken.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { Api } from "../../schemas/api.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { escapeHtml as escape } from "../../core/html.ts"


// A page no one else frames, caches, indexes or learns the token from (it is in this page's URL).
const PAGE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-robots-tag": "noindex",
  "content-security-policy": "frame-ancestors 'none'"
}

const page = (status: number, title: string, body: string) =>
  HttpServerResponse.text(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">
<h1 style="font-size:1.4rem">${title}</h1>${body}</body></html>`, { status, contentType: "text/html; charset=utf-8", headers: PAGE_HEADERS })

const gone = page(410, "This link is no longer valid", "<p>It may have expired, or a newer confirmation email replaced it. Sign up again to get a new one.</p>")

const claimOf = (token: string) => Effect.map(Effect.service(WebhookConfig), (c) => verifyConfirmToken(Redacted.value(c.encryptionKey), token, Date.now()))

/** GET shows a button and changes nothing: mail scanners and link previews fetch links without a person asking. */
const show = Effect.fn("Newsletter.confirmPage")(function*(token: string) {
  const verdict = yield* claimOf(token)
  if (!verdict.ok) return gone
  return page(200, "Confirm your newsletter subscription",
    `<p>Press the button to start receiving our newsletter.</p><form method="post" action="/api/public/newsletter/confirm">` +
    `<input type="hidden" name="token" value="${escape(token)}">` +
    `<button type="submit" style="font-size:1rem;padding:.5rem 1rem">Confirm subscription</button></form>`)
})

/** POST (the button): the subscription is confirmed and the contact gets email marketing consent with this click's evidence. */
const confirm = Effect.fn("Newsletter.confirm")(function*(token: string) {
  const verdict = yield* claimOf(token)
  if (!verdict.ok) return gone
  const request = yield* HttpServerRequest.HttpServerRequest
  const { tenant_id, sandbox, subscription_id, nonce } = verdict.claim
  const actors = yield* ActorClient
  return yield* actors.for(NewsletterProtocol, { tenant_id, sandbox }).confirm({
    subscription_id, nonce, ip: Option.getOrNull(request.remoteAddress), user_agent: request.headers["user-agent"]?.slice(0, 500) ?? null
  }).pipe(
    Effect.as(page(200, "You are subscribed", "<p>Thank you: your subscription is confirmed.</p>")),
    Effect.catch((e) => e instanceof LinkSuperseded
      ? Effect.succeed(gone)
      : Effect.logWarning("newsletter confirmation failed").pipe(Effect.annotateLogs({ cause: String(e) }),
        Effect.as(page(503, "Please try again in a moment", "<p>We could not record your confirmation just now.</p>"))))
  )
})

export const NewsletterConfirmLive = HttpApiBuilder.group(Api, "newsletterConfirm", (handlers) =>
  Effect.gen(function*() {
    // The services the handlers use, taken when the server is built (not per request).
    const ctx = yield* Effect.context<WebhookConfig | ActorClient>()
    return handlers
      .handle("show", ({ query }) => show(query.token).pipe(Effect.provideContext(ctx)))
      .handle("confirm", ({ payload }) => confirm(payload.token).pipe(Effect.provideContext(ctx)))
  }))
