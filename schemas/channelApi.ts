import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  EmailChannelRequest, EmailChannelResponse, TemplateLanguage, TemplateName, TemplateRemovedResponse, TemplateRequest,
  TemplateResponse, WhatsAppChannelRequest, WhatsAppChannelResponse
} from "./channel.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "./errors.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"

const template = { name: TemplateName, language: TemplateLanguage }

/** Email and WhatsApp configuration of the calling key's account and mode. */
export const ChannelsGroup = HttpApiGroup.make("channels")
  .add(HttpApiEndpoint.get("getEmail", "/api/v1/channels/email", { success: EmailChannelResponse, error: NotFound })
    .annotate(RequiredScope, "channels:read")
    .annotate(OpenApi.Summary, "The email sender of this account and mode; 404 CHANNEL_NOT_CONFIGURED before the first PUT"))
  .add(
    HttpApiEndpoint.put("putEmail", "/api/v1/channels/email", { payload: EmailChannelRequest, success: EmailChannelResponse, error: [ValidationFailed, Unprocessable] })
      .annotate(RequiredScope, "channels:write")
      .annotate(OpenApi.Summary, "Set the email sender (and per-hotel overrides); fields not sent keep their stored values, null clears")
  )
  .add(HttpApiEndpoint.get("getWhatsApp", "/api/v1/channels/whatsapp", { success: WhatsAppChannelResponse, error: NotFound })
    .annotate(RequiredScope, "channels:read")
    .annotate(OpenApi.Summary, "The WhatsApp number and registered templates of this account and mode (never a secret)"))
  .add(
    HttpApiEndpoint.put("putWhatsApp", "/api/v1/channels/whatsapp", { payload: WhatsAppChannelRequest, success: WhatsAppChannelResponse, error: [ValidationFailed, Conflict] })
      .annotate(RequiredScope, "channels:write")
      .annotate(OpenApi.Summary, "Set the WhatsApp number, its secrets (write-only) and templates (replaced whole when sent)")
  )
  .add(
    HttpApiEndpoint.put("putTemplate", "/api/v1/channels/whatsapp/templates/:name/:language", {
      params: template, payload: TemplateRequest, success: TemplateResponse, error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "channels:write")
      .annotate(OpenApi.Summary, "Register one template (or change its category or parameter count), leaving the others")
  )
  .add(
    HttpApiEndpoint.delete("removeTemplate", "/api/v1/channels/whatsapp/templates/:name/:language", {
      params: template, success: TemplateRemovedResponse, error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "channels:write")
      .annotate(OpenApi.Summary, "Unregister one template: sends naming it are refused from then on")
  )
  // Configuration: a misspelt key (fromName) is refused, not silently ignored.
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error" })
  .middleware(ValidationErrors)
  .middleware(Authentication)
