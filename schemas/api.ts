import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ChannelsGroup } from "./channelApi.ts"
import { InternalError, NotFound, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { BATCH_BODY_LIMIT, BodyLimit, BodyLimits } from "./limits.ts"
import { SafeString } from "./text.ts"
import { EventCreated, EventRequest, EventResponse } from "./event.ts"
import { FieldsRequest, FieldsResponse } from "./fields.ts"
import { GuestBatchRequest, GuestBatchResponse, GuestCreated, GuestProfile, GuestRequest, GuestResponse } from "./guest.ts"
import { B2bGroup } from "./b2bApi.ts"
import { JourneysGroup } from "./journeyApi.ts"
import { WebsiteSourcesGroup } from "./websiteSourceApi.ts"
import { CdpGroup } from "./cdpApi.ts"
import { NewsletterConfigGroup, NewsletterConfirmGroup, NewsletterGroup } from "./newsletterApi.ts"
import { LoyaltyGroup } from "./loyaltyApi.ts"
import { LoyaltyCreditGroup } from "./loyaltyCreditApi.ts"
import { LoyaltyAuctionsGroup } from "./loyaltyAuction.ts"
import { LoyaltyClubGroup, LoyaltyMeGroup, OidcClientsGroup } from "./oidcApi.ts"
import { MessagesGroup } from "./messageApi.ts"
import { MessagingWebhooks } from "./messageEvents.ts"
import { LoyaltyWebhooks } from "./loyaltyEvents.ts"
import { RawRouteComponents, RawRoutePaths } from "./rawRoutes.ts"
import { describeEdge } from "./edgeDocument.ts"
import { idempotentOperations } from "./idempotency.ts"
import { ContactCallsGroup, TelephonyGroup } from "./telephonyApi.ts"
import { BatchRequest, BatchResponse, ReservationCreated, ReservationRequest, ReservationResponse, StoredReservation } from "./reservation.ts"
import {
  CreateWebhookRequest, DeliveryListResponse, SecretRotatedResponse, UpdateWebhookRequest, WebhookCreatedResponse,
  WebhookDeletedResponse, WebhookListResponse, WebhookResponse, WebhookSettingsRequest, WebhookSettingsResponse
} from "./webhook.ts"

export { Authentication, CurrentPrincipal, RequiredScope, ValidationErrors, type Principal } from "./security.ts"
export { BodyLimit, BodyLimits } from "./limits.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"

const Created = ReservationCreated.pipe(HttpApiSchema.status(201)).annotate({ description: "A new reservation" })
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
      .annotate(BodyLimit, BATCH_BODY_LIMIT)
      .annotate(OpenApi.Summary, "Up to 50 reservations; partial success with one result per item, in order")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/reservations/:reservation_id", {
      params: { reservation_id: SafeString },
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
      success: [Created201(GuestCreated, "A new contact"), GuestResponse.annotate({ description: "An existing contact" })],
      error: [Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Create or update a guest contact by phone, with an optional booking")
  )
  .add(
    HttpApiEndpoint.post("batch", "/api/v1/guests/batch", { payload: GuestBatchRequest, success: GuestBatchResponse, error: [Unavailable] })
      .annotate(RequiredScope, "guests:write")
      .annotate(BodyLimit, BATCH_BODY_LIMIT)
      .annotate(OpenApi.Summary, "Up to 500 guests; partial success with one result per item, in order")
  )
  .add(
    HttpApiEndpoint.get("lookup", "/api/v1/guests", {
      query: { phone: SafeString },
      success: GuestProfile,
      error: NotFound
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "Look a contact up by phone: profile, consent, tags, custom fields, hotels, reservations")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

export const FieldsGroup = HttpApiGroup.make("fields")
  .add(
    HttpApiEndpoint.post("define", "/api/v1/fields", { payload: FieldsRequest, success: FieldsResponse, error: ValidationFailed })
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
      success: [Created201(EventCreated, "A new event"), EventResponse.annotate({ description: "A repeated idempotency_key: the original event" })],
      error: [Unprocessable, Unavailable, InternalError]
    }).annotate(RequiredScope, "events:write")
      .annotate(OpenApi.Summary, "Send an event that can start journeys")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

const webhook = { id: SafeString }
export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/webhooks", {
      payload: CreateWebhookRequest,
      success: WebhookCreatedResponse.pipe(HttpApiSchema.status(201)),
      error: [ValidationFailed, Unprocessable]
    }).annotate(RequiredScope, "webhooks:manage")
      .annotate(OpenApi.Summary, "Subscribe a URL to events; the answer shows the signing secret, once")
  )
  .add(HttpApiEndpoint.get("list", "/api/v1/webhooks", { success: WebhookListResponse })
    .annotate(RequiredScope, "webhooks:manage").annotate(OpenApi.Summary, "The subscriptions of this account and mode"))
  .add(HttpApiEndpoint.get("get", "/api/v1/webhooks/:id", { params: webhook, success: WebhookResponse, error: NotFound })
    .annotate(RequiredScope, "webhooks:manage").annotate(OpenApi.Summary, "One subscription (never its secret)"))
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/webhooks/:id", {
      params: webhook, payload: UpdateWebhookRequest, success: WebhookResponse, error: [ValidationFailed, NotFound, Unprocessable]
    }).annotate(RequiredScope, "webhooks:manage")
      .annotate(OpenApi.Summary, "Change fields sent; enabled: true re-enables a subscription disabled by a 410")
  )
  .add(HttpApiEndpoint.delete("remove", "/api/v1/webhooks/:id", { params: webhook, success: WebhookDeletedResponse, error: NotFound })
    .annotate(RequiredScope, "webhooks:manage").annotate(OpenApi.Summary, "Delete a subscription and its delivery log"))
  .add(
    HttpApiEndpoint.post("rotateSecret", "/api/v1/webhooks/:id/rotate-secret", { params: webhook, success: SecretRotatedResponse, error: NotFound })
      .annotate(RequiredScope, "webhooks:manage")
      .annotate(OpenApi.Summary, "New signing secret, shown once; the previous one keeps signing for 24 h")
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/api/v1/webhooks/:id/deliveries", {
      params: webhook,
      query: { limit: Schema.optionalKey(SafeString), cursor: Schema.optionalKey(SafeString) },
      success: DeliveryListResponse,
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "webhooks:manage")
      .annotate(OpenApi.Summary, "Delivery attempts of the last 14 days, newest first; limit 1-100 (20), cursor = next_cursor")
  )
  .add(HttpApiEndpoint.get("getSettings", "/api/v1/webhook-settings", { success: WebhookSettingsResponse })
    .annotate(RequiredScope, "webhooks:manage").annotate(OpenApi.Summary, "Local times of the reservation date events"))
  .add(
    HttpApiEndpoint.patch("updateSettings", "/api/v1/webhook-settings", {
      payload: WebhookSettingsRequest,
      success: WebhookSettingsResponse,
      error: ValidationFailed
    })
      .annotate(RequiredScope, "webhooks:manage")
      .annotate(OpenApi.Summary, "Set the local check-in / check-out event times (HH:MM, hotel time zone)")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

const ApiContract = HttpApi.make("gep")
  .add(ReservationsGroup)
  .add(GuestsGroup)
  .add(FieldsGroup)
  .add(EventsGroup)
  .add(WebhooksGroup)
  .add(TelephonyGroup)
  .add(ContactCallsGroup)
  .add(MessagesGroup)
  .add(B2bGroup)
  .add(ChannelsGroup)
  .add(LoyaltyGroup)
  .add(JourneysGroup)
  .add(LoyaltyCreditGroup)
  .add(WebsiteSourcesGroup)
  .add(LoyaltyAuctionsGroup)
  .add(CdpGroup)
  .add(OidcClientsGroup)
  .add(LoyaltyMeGroup)
  .add(LoyaltyClubGroup)
  .add(NewsletterConfigGroup)
  .add(NewsletterGroup)
  .add(NewsletterConfirmGroup)
  // Every group above gets the body limits: add a new family's group before this line.
  .middleware(BodyLimits)
  .annotate(OpenApi.Title, "Guest Engagement Platform Integration API")
  .annotate(OpenApi.Version, "1.0.0")
  // Report every invalid field at once, not just the first.
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })

// OpenAPI 3.1 `webhooks`: what a subscription receives for each messaging and loyalty event (signed as the README describes).
// and the routes served outside HttpApi (website-event ingestion, the SDK, webhooks in, pages, oidc-provider), in rawRoutes/.
// and what the edge adds to every answer (X-Request-Id; Idempotency-Key on the POSTs honouring it): edgeDocument.ts.
export const Api = ApiContract.annotate(OpenApi.Transform, (spec) => describeEdge({
  ...spec,
  paths: { ...spec.paths, ...RawRoutePaths } as typeof spec.paths,
  components: { ...spec.components, schemas: { ...RawRouteComponents, ...spec.components.schemas } },
  webhooks: {
    ...spec.webhooks,
    ...Object.fromEntries([...MessagingWebhooks, ...LoyaltyWebhooks].map(([eventType, schema]) => {
      const doc = Schema.toJsonSchemaDocument(schema as never)
      return [eventType, {
        post: {
          summary: `${eventType}, delivered to subscriptions listening to it`,
          requestBody: { required: true, content: { "application/json": { schema: { ...doc.schema, ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {}) } } } },
          responses: { "200": { description: "Any 2xx acknowledges the delivery" } }
        }
      }]
    }))
  }
}, idempotentOperations(ApiContract)))
