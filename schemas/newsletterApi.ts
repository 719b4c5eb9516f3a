import { Schema } from "effect"
import { SafeString } from "./text.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { Forbidden, RateLimited, Unauthorized, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { ConfirmForm, NewsletterConfigRequest, NewsletterConfigSaved, NewsletterWidgetConfig, SubscribeRequest, SubscribeResponse } from "./newsletter.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"

// Newsletter double opt-in: the widget's set-up (core key, guests:write), the widget's own calls (publishable key
// svc_pub_ from a browser on an allowed origin, or a core key with guests:write from a server), and the signed
// confirmation link of the email (an HTML page: GET shows a button and changes nothing, POST confirms).

export const NewsletterConfigGroup = HttpApiGroup.make("newsletterConfig")
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/newsletter/config", {
      payload: NewsletterConfigRequest,
      success: NewsletterConfigSaved,
      error: [ValidationFailed, Unprocessable]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Set up the newsletter widget: enabled, allowed origins, fields, Turnstile bot check; answers the publishable key")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

/** The core 400 for a malformed widget request, with CORS headers when the page's origin is one a widget allows. */
export class NewsletterValidationErrors extends HttpApiMiddleware.Service<NewsletterValidationErrors>()("app/http/NewsletterValidationErrors", {
  error: ValidationFailed
}) {}

const WIDGET_AUTH = "Authorization: Bearer svc_pub_… from a page on an allowed origin (Origin or Referer), or a core key with guests:write from a server"

const Cors = HttpApiSchema.NoContent.annotate({ description: "CORS preflight: allowed origins get the Access-Control-Allow-* headers" })

export const NewsletterGroup = HttpApiGroup.make("newsletter")
  .add(
    HttpApiEndpoint.get("config", "/api/v1/newsletter/config", {
      success: NewsletterWidgetConfig,
      error: [Unauthorized, Forbidden, RateLimited]
    }).annotate(OpenApi.Summary, "What the widget needs to render (nothing secret)")
      .annotate(OpenApi.Description, WIDGET_AUTH)
  )
  .add(
    HttpApiEndpoint.post("subscribe", "/api/v1/newsletter/subscribe", {
      payload: SubscribeRequest,
      success: SubscribeResponse.pipe(HttpApiSchema.status(202)),
      error: [ValidationFailed, Unauthorized, Forbidden, Unprocessable, RateLimited, Unavailable]
    }).annotate(OpenApi.Summary, "Sign up for the newsletter: pending until the emailed link is confirmed (double opt-in)")
      .annotate(OpenApi.Description, `${WIDGET_AUTH}. 403 when the widget is disabled, the origin is not allowed or the bot check fails; ` +
        "a filled honeypot `_hp` is answered like a success and nothing is stored; an address already subscribed answers `subscribed` and gets no email; " +
        "a pending one gets at most one confirmation email per 10 minutes.")
  )
  .add(HttpApiEndpoint.options("configPreflight", "/api/v1/newsletter/config", { success: Cors }).annotate(OpenApi.Summary, "CORS preflight"))
  .add(HttpApiEndpoint.options("subscribePreflight", "/api/v1/newsletter/subscribe", { success: Cors }).annotate(OpenApi.Summary, "CORS preflight"))
  .middleware(NewsletterValidationErrors)

const Html = (status: number, description: string) =>
  Schema.String.pipe(HttpApiSchema.status(status), HttpApiSchema.asText({ contentType: "text/html" })).annotate({ description })

export const NewsletterConfirmGroup = HttpApiGroup.make("newsletterConfirm")
  .add(
    HttpApiEndpoint.get("show", "/api/public/newsletter/confirm", {
      query: { token: SafeString },
      success: Html(200, "A page with a Confirm button (a form that POSTs the token); nothing changes"),
      error: [Html(410, "The link is malformed, expired or superseded by a newer email")]
    }).annotate(OpenApi.Summary, "The confirmation link of the email: shows a confirm button and changes nothing (mail scanners fetch links)")
  )
  .add(
    HttpApiEndpoint.post("confirm", "/api/public/newsletter/confirm", {
      payload: ConfirmForm.pipe(HttpApiSchema.asFormUrlEncoded()),
      success: Html(200, "Confirmed (a repeated confirmation shows the same page)"),
      error: [ValidationFailed, Html(410, "The link is malformed, expired or superseded by a newer email"), Html(503, "Try again in a moment")]
    }).annotate(OpenApi.Summary, "Confirm the subscription: the contact gets email marketing consent, with the evidence of this click")
  )
  .middleware(ValidationErrors)
