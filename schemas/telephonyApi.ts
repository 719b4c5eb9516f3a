import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InternalError, NotFound, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { BodyLimit, CTI_BODY_LIMIT } from "./limits.ts"
import { Audited, Authentication, CtiAuthentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"
import { CallCreated, CallRecordResponse, CallsPage, CtiPayload, CtiResponse, DialRequest, DialRequested } from "./telephony.ts"
import { PageQuery } from "./list.ts"

const ctiSuccess = [
  CallCreated.pipe(HttpApiSchema.status(201)).annotate({ description: "First message of this call_id" }),
  CtiResponse.annotate({ description: "The call was updated in place" })
]

export const TelephonyGroup = HttpApiGroup.make("telephony")
  .add(
    HttpApiEndpoint.post("cti", "/api/webhooks/cti", { payload: CtiPayload, success: ctiSuccess, error: [Unprocessable, Unavailable, InternalError] })
      .annotate(OpenApi.Summary, "Call events and completed-call records from a telephony provider")
  )
  .add(
    HttpApiEndpoint.post("ctiProvider", "/api/webhooks/cti/:provider", {
      params: { provider: SafeString },
      payload: CtiPayload,
      success: ctiSuccess,
      error: [Unprocessable, Unavailable, InternalError]
    }).annotate(OpenApi.Summary, "Same as /api/webhooks/cti; the provider in the path must be the token's")
  )
  .middleware(ValidationErrors)
  .middleware(CtiAuthentication)
  .annotate(BodyLimit, CTI_BODY_LIMIT)

export const ContactCallsGroup = HttpApiGroup.make("contactCalls")
  .add(
    HttpApiEndpoint.get("calls", "/api/contacts/:id/calls", {
      params: { id: SafeString },
      query: PageQuery,
      success: CallsPage,
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read")
      .annotate(Audited, { action: "contact.viewed", contactParam: "id", staffOnly: true })
      .annotate(OpenApi.Summary, "A contact's calls, newest first; `next_cursor` pages on (limit 1-100, default 25)")
  )
  .add(
    HttpApiEndpoint.get("call", "/api/calls/:call_record_id", {
      params: { call_record_id: SafeString },
      success: CallRecordResponse,
      error: NotFound
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "One call record, whole: transcript turns, summary, recording, agent, caller, metadata")
  )
  .add(
    HttpApiEndpoint.post("dial", "/api/contacts/:id/call", {
      params: { id: SafeString },
      payload: DialRequest,
      success: DialRequested.pipe(HttpApiSchema.status(202)).annotate({ description: "Dial request recorded and handed to the provider adapter" }),
      error: [ValidationFailed, NotFound, Unprocessable]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Click-to-call: ask the tenant's telephony provider to dial the contact")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
