import { Context, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Forbidden, NotFound, RateLimited, Unauthorized, Unavailable, Unprocessable, ValidationFailed, InternalError } from "./errors.ts"
import { EventRequest, EventResponse } from "./events.ts"
import { FieldsRequest, FieldsResponse } from "./fields.ts"
import { GuestBatchRequest, GuestBatchResponse, GuestProfile, GuestRequest, GuestResponse } from "./guests.ts"
import { BatchRequest, BatchResponse, ReservationRequest, ReservationResponse, StoredReservation } from "./reservation.ts"

/** Who is calling, derived from the API key: tenant, sandbox or live data, and the key's scopes. */
export interface Principal {
  readonly key_id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly scopes: ReadonlyArray<string>
  readonly rate_limit_per_minute: number | null
}
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("app/http/CurrentPrincipal") {}

/** Endpoint annotation: the scope a key needs for this endpoint (`*` grants all). */
export class RequiredScope extends Context.Service<RequiredScope, string>()("app/http/RequiredScope") {}

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentPrincipal }>()(
  "app/http/Authentication",
  { error: [Unauthorized, Forbidden, RateLimited], security: { bearer: HttpApiSecurity.bearer } }
) {}

/** Turns schema decoding failures into the core error shape with per-field details. */
export class ValidationErrors extends HttpApiMiddleware.Service<ValidationErrors>()("app/http/ValidationErrors", {
  error: ValidationFailed
}) {}

const Created = ReservationResponse.pipe(HttpApiSchema.status(201)).annotate({ description: "A new reservation" })
const Updated = ReservationResponse.annotate({ description: "An existing reservation updated, or skipped" })

export const ReservationsGroup = HttpApiGroup.make("reservations")
  .add(
    HttpApiEndpoint.post("upsert", "/api/v1/reservations", {
      payload: ReservationRequest,
      success: [Created, Updated],
      error: [Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "reservations:write")
      .annotate(OpenApi.Summary, "Create or update a reservation (upsert by reservation_id)")
  )
  .add(
    HttpApiEndpoint.post("batch", "/api/v1/reservations/batch", {
      payload: BatchRequest,
      success: BatchResponse,
      error: [Unavailable]
    }).annotate(RequiredScope, "reservations:write")
      .annotate(OpenApi.Summary, "Up to 50 reservations; partial success with one result per item, in order")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/reservations/:reservation_id", {
      params: { reservation_id: Schema.String },
      success: StoredReservation,
      error: NotFound
    }).annotate(RequiredScope, "bookings:read")
      .annotate(OpenApi.Summary, "Read a reservation by the partner's reservation_id")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

const Created201 = <S extends Schema.Top>(s: S, description: string) => s.pipe(HttpApiSchema.status(201)).annotate({ description })

export const GuestsGroup = HttpApiGroup.make("guests")
  .add(
    HttpApiEndpoint.post("upsert", "/api/v1/guests", {
      payload: GuestRequest,
      success: [Created201(GuestResponse, "A new contact"), GuestResponse.annotate({ description: "An existing contact" })],
      error: [Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Create or update a guest contact by phone, with an optional booking")
  )
  .add(
    HttpApiEndpoint.post("batch", "/api/v1/guests/batch", { payload: GuestBatchRequest, success: GuestBatchResponse, error: [Unavailable] })
      .annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Up to 500 guests; partial success with one result per item, in order")
  )
  .add(
    HttpApiEndpoint.get("lookup", "/api/v1/guests", {
      query: { phone: Schema.String },
      success: GuestProfile,
      error: NotFound
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "Look a contact up by phone: profile, consent, tags, custom fields, hotels, reservations")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

export const FieldsGroup = HttpApiGroup.make("fields")
  .add(
    HttpApiEndpoint.post("define", "/api/v1/fields", { payload: FieldsRequest, success: FieldsResponse })
      .annotate(RequiredScope, "custom_fields:write")
      .annotate(OpenApi.Summary, "Create or update up to 50 custom field definitions (upsert by field_key)")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/fields", { success: FieldsResponse })
      .annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "The account's custom field definitions, in display order")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

export const EventsGroup = HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.post("record", "/api/v1/events", {
      payload: EventRequest,
      success: [Created201(EventResponse, "A new event"), EventResponse.annotate({ description: "A repeated idempotency_key: the original event" })],
      error: [Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "events:write")
      .annotate(OpenApi.Summary, "Send an event that can start journeys")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

export const Api = HttpApi.make("gep")
  .add(ReservationsGroup)
  .add(GuestsGroup)
  .add(FieldsGroup)
  .add(EventsGroup)
  .annotate(OpenApi.Title, "Guest Engagement Platform Integration API")
  .annotate(OpenApi.Version, "1.0.0")
  // Report every invalid field at once, not just the first.
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })
