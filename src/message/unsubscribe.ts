import { Effect, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { MessageProtocol } from "../../actors/message/protocol.ts"
import { Database } from "../../core/db/Database.ts"
import { verifyUnsubscribeToken } from "../../core/message/unsubscribe.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { ActorClient } from "../../streams/ActorClient.ts"

const PREFIX = "/api/v1/unsubscribe/"

const page = (status: number, title: string, body: string) =>
  HttpServerResponse.text(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">
<h1 style="font-size:1.4rem">${title}</h1>${body}</body></html>`, { status, contentType: "text/html; charset=utf-8" })

/** The message a link was made for: tenant, mode, contact and channel, read with the owner's role (no tenant yet). */
const messageOfToken = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const webhook = yield* WebhookConfig
  const { sql } = yield* Database
  const token = decodeURIComponent(new URL(request.url, "http://localhost").pathname.slice(PREFIX.length))
  const id = verifyUnsubscribeToken(Redacted.value(webhook.encryptionKey), token)
  if (id === undefined) return undefined
  const [m] = yield* Effect.promise(() => sql`SELECT tenant_id, sandbox, contact_id, channel FROM messages WHERE id = ${id}`)
  return m as { tenant_id: string; sandbox: boolean; contact_id: string; channel: "email" | "whatsapp" } | undefined
})

const unknownLink = page(404, "This link is not valid", "<p>It may have been copied incompletely.</p>")

/** GET shows a button and changes nothing: mail scanners and link previews fetch links without a person asking. */
const confirm = Effect.gen(function*() {
  const m = yield* messageOfToken
  if (m === undefined) return unknownLink
  return page(200, "Unsubscribe from marketing email?",
    `<form method="post"><button type="submit" style="font-size:1rem;padding:.5rem 1rem">Unsubscribe</button></form>`)
})

/** POST (the RFC 8058 one-click request, or the button above): the contact's email marketing opt-out, recorded for good. */
const unsubscribe = Effect.gen(function*() {
  const m = yield* messageOfToken
  if (m === undefined) return unknownLink
  const actors = yield* ActorClient
  yield* actors.for(MessageProtocol, { tenant_id: m.tenant_id, sandbox: m.sandbox })
    .optOut({ contact_id: m.contact_id, channel: m.channel, source: "list_unsubscribe" })
  return page(200, "You are unsubscribed", "<p>You will receive no more marketing email from us.</p>")
})

const orRetryLater = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  effect.pipe(Effect.catchCause((cause) =>
    Effect.logWarning("unsubscribe failed").pipe(Effect.annotateLogs({ cause: String(cause) }),
      Effect.as(page(503, "Please try again in a moment", "<p>We could not record your request just now.</p>")))))

/** The routes, with the services they use taken when the server is built (not per request). */
export const UnsubscribeRoutes = HttpRouter.addAll(Effect.gen(function*() {
  const actors = yield* ActorClient
  const webhook = yield* WebhookConfig
  const withServices = <E, R>(e: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    e.pipe(Effect.provideService(ActorClient, actors), Effect.provideService(WebhookConfig, webhook))
  return [
    HttpRouter.route("GET", `${PREFIX}:token`, withServices(orRetryLater(confirm))),
    HttpRouter.route("POST", `${PREFIX}:token`, withServices(orRetryLater(unsubscribe)))
  ]
}))
