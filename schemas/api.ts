import { Context, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Forbidden, NotFound, RateLimited, Unauthorized, Unavailable, Unprocessable, ValidationFailed, InternalError } from "./errors.ts"
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

export const Api = HttpApi.make("gep")
  .add(ReservationsGroup)
  .annotate(OpenApi.Title, "Guest Engagement Platform Integration API")
  .annotate(OpenApi.Version, "1.0.0")
  // Report every invalid field at once, not just the first.
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })
