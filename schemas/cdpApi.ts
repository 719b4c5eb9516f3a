import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  BatchStatusResponse, CdpBatchRequest, CdpReservationCreated, CdpBatchResponse, CdpBulkAccepted, CdpBulkRequest, CdpEventsAccepted, CdpEventsRequest,
  CdpReservationRequest, CdpReservationResponse, CdpSettingsRequest, CdpSettingsResponse, IdentifyRequest, IdentifyResponse
} from "./cdp.ts"
import { Forbidden, InternalError, NotFound, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { BATCH_BODY_LIMIT, BodyLimit, MiB } from "./limits.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"

// The CDP with a core key: tracking settings and visitor events (cdp:write; the Origin checked against the allowed
// domains when there are any), identify, post-checkout reservations one at a time, in batches of 100 or as a bulk job
// of up to 5,000 read back by its batch id.

const origin = { origin: Schema.optionalKey(SafeString.annotate({ description: "checked against allowed_domains when any are set" })) }
const writeErrors = [Unprocessable, Unavailable, InternalError]

export const CdpGroup = HttpApiGroup.make("cdp")
  .add(HttpApiEndpoint.get("getSettings", "/api/v1/cdp/settings", { success: CdpSettingsResponse })
    .annotate(RequiredScope, "cdp:write").annotate(OpenApi.Summary, "Visitor tracking switch and the allowed domains of this account and mode"))
  .add(HttpApiEndpoint.patch("updateSettings", "/api/v1/cdp/settings", { payload: CdpSettingsRequest, success: CdpSettingsResponse, error: ValidationFailed })
    .annotate(RequiredScope, "cdp:write").annotate(OpenApi.Summary, "Turn visitor tracking on or off; allowed_domains (a domain allows its subdomains; empty: any origin)"))
  .add(HttpApiEndpoint.post("events", "/api/v1/cdp/events", {
    headers: origin, payload: CdpEventsRequest, success: CdpEventsAccepted.pipe(HttpApiSchema.status(202)), error: [Forbidden, Unavailable, InternalError]
  }).annotate(RequiredScope, "cdp:write")
    .annotate(OpenApi.Summary, "1 to 100 visitor events of one visit (URL domains stripped); 403 when tracking is off or the Origin is not allowed"))
  .add(HttpApiEndpoint.post("identify", "/api/v1/cdp/identify", { payload: IdentifyRequest, success: IdentifyResponse, error: writeErrors })
    .annotate(RequiredScope, "cdp:write")
    .annotate(OpenApi.Summary, "Link a visitor to the contact of an email or phone (created if new); the visitor's last 30 days are attached"))
  .add(HttpApiEndpoint.post("reservation", "/api/v1/cdp/reservations", {
    payload: CdpReservationRequest,
    success: [CdpReservationCreated.pipe(HttpApiSchema.status(201)).annotate({ description: "A new reservation" }),
      CdpReservationResponse.annotate({ description: "An existing reservation updated, or skipped" })],
    error: writeErrors
  }).annotate(RequiredScope, "cdp:write")
    .annotate(OpenApi.Summary, "A post-checkout reservation (the core Reservation rules) linked to its visitor, session and cart"))
  .add(HttpApiEndpoint.post("reservationBatch", "/api/v1/cdp/reservations/batch", { payload: CdpBatchRequest, success: CdpBatchResponse, error: Unavailable })
    .annotate(RequiredScope, "cdp:write").annotate(BodyLimit, BATCH_BODY_LIMIT)
    .annotate(OpenApi.Summary, "Up to 100 CDP reservations; partial success with one result per item, in order"))
  .add(HttpApiEndpoint.post("reservationBulk", "/api/v1/cdp/reservations/bulk", {
    payload: CdpBulkRequest, success: CdpBulkAccepted.pipe(HttpApiSchema.status(202)), error: Unavailable
  }).annotate(RequiredScope, "cdp:write").annotate(BodyLimit, 16 * MiB)
    .annotate(OpenApi.Summary, "Up to 5,000 CDP reservations as one background job: 202 with batch_id and a Location header"))
  .add(HttpApiEndpoint.get("batch", "/api/v1/cdp/batches/:id", { params: { id: SafeString }, success: BatchStatusResponse, error: NotFound })
    .annotate(RequiredScope, "cdp:read").annotate(OpenApi.Summary, "A bulk job's status, progress and per-item errors"))
  .middleware(ValidationErrors)
  .middleware(Authentication)
