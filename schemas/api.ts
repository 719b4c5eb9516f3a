import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ChannelsGroup } from "./channelApi.ts"
import { openAcceptingBodies, refusingOperations } from "./openBodies.ts"
import { InternalError, NotFound, RateLimited, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { BATCH_BODY_LIMIT, BodyLimit, BodyLimits } from "./limits.ts"
import { SafeString } from "./text.ts"
import { PageQuery } from "./list.ts"
import { EventCreated, EventRequest, EventResponse } from "./event.ts"
import { FieldsList, FieldsRequest, FieldsSavedResponse } from "./fields.ts"
import { GuestBatchRequest, GuestBatchResponse, GuestCreated, GuestProfile, GuestRequest, GuestResponse } from "./guest.ts"
import { B2bGroup } from "./b2bApi.ts"
import { JourneysGroup } from "./journeyApi.ts"
import { WebsiteSourcesGroup } from "./websiteSourceApi.ts"
import { CdpGroup } from "./cdpApi.ts"
import { ContactsGroup } from "./contactApi.ts"
import { SegmentsGroup } from "./segmentApi.ts"
import { BroadcastsGroup } from "./broadcastApi.ts"
import { PrivacyExportGroup, PrivacyGroup } from "./privacyApi.ts"
import { AuditGroup, StaffGroup, StaffSessionGroup, StaffSignInGroup } from "./staffApi.ts"
import { NewsletterConfigGroup, NewsletterConfirmGroup, NewsletterGroup } from "./newsletterApi.ts"
import { LoyaltyGroup } from "./loyaltyApi.ts"
import { LoyaltyCreditGroup } from "./loyaltyCreditApi.ts"
import { LoyaltyAuctionsGroup } from "./loyaltyAuction.ts"
import { LoyaltyClubGroup, LoyaltyMeGroup, OidcClientsGroup } from "./oidcApi.ts"
import { MessagesGroup } from "./messageApi.ts"
import { OverviewGroup } from "./overviewApi.ts"
import { WebhookPayloads } from "./webhookPayloads.ts"
import { RawRouteComponents, RawRoutePaths } from "./rawRoutes.ts"
import { TagDescriptions } from "./tags.ts"
import { describeEdge } from "./edgeDocument.ts"
import { idempotentOperations } from "./idempotency.ts"
import { ContactCallsGroup, TelephonyGroup } from "./telephonyApi.ts"
import { BatchRequest, BatchResponse, ReservationCreated, ReservationRequest, ReservationResponse } from "./reservation.ts"
import { ReservationList, ReservationListQuery, ReservationRead, ReservationReadQuery } from "./reservationRead.ts"
import { EventList, EventListQuery, EventParams, EventRead } from "./eventRead.ts"
import { HotelsGroup, KeysGroup, TelephonyIntegrationsGroup } from "./tenancyApi.ts"
import {
  CreateWebhookRequest, DeliveryListResponse, TenantDeliveryListResponse, ReplayAccepted, ReplayRequest, ResendAccepted, SecretRotatedResponse,
  TestEventSent, UpdateWebhookRequest, WebhookCreatedResponse, WebhookDeletedResponse, WebhookListResponse, WebhookResponse,
  WebhookSettingsRequest, WebhookSettingsResponse, WebhookUpdatedResponse
} from "./webhook.ts"

export { acceptedScopes, Audited, Authentication, CurrentPrincipal, OperatorAction, RequiredScope, ValidationErrors, type Principal } from "./security.ts"
export { BodyLimit, BodyLimits } from "./limits.ts"
import { Audited, Authentication, OperatorAction, RequiredScope, ValidationErrors } from "./security.ts"
import { operationScopes, withScopes } from "./scopeDocument.ts"

/** Reservations are read by a booking integration (bookings:read) and by a guest-facing one (guests:read) alike. */
const RESERVATION_READ_SCOPES = ["bookings:read", "guests:read"] as const

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
    HttpApiEndpoint.get("list", "/api/v1/reservations", { query: ReservationListQuery, success: ReservationList })
      .annotate(RequiredScope, RESERVATION_READ_SCOPES)
      .annotate(OpenApi.Summary, "List reservations, newest updated first, filtered by hotel, status, check-in, update time or guest")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/reservations/:id", {
      params: { id: SafeString },
      query: ReservationReadQuery,
      success: ReservationRead,
      error: NotFound
    }).annotate(RequiredScope, RESERVATION_READ_SCOPES)
      .annotate(OpenApi.Summary, "Read a reservation by our reservation_id (UUID) or the partner's; by=external forces the partner's")
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
    HttpApiEndpoint.post("define", "/api/v1/fields", { payload: FieldsRequest, success: FieldsSavedResponse, error: ValidationFailed })
      .annotate(RequiredScope, "custom_fields:write")
      .annotate(OpenApi.Summary, "Create or update up to 50 custom field definitions (upsert by field_key)")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/fields", { success: FieldsList })
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
  .add(
    HttpApiEndpoint.get("list", "/api/v1/events", { query: EventListQuery, success: EventList })
      .annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "List events (core and booking events), newest first, by type, contact or time")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/events/:event_id", { params: EventParams, success: EventRead, error: NotFound })
      .annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "Read one event (core or booking event) by its event_id")
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
      .annotate(OpenApi.Summary, "Subscribe a URL to events; the answer shows the generated signing secret, once (or none: your own `secret`)")
  )
  .add(HttpApiEndpoint.get("list", "/api/v1/webhooks", { success: WebhookListResponse })
    .annotate(RequiredScope, "webhooks:manage").annotate(OpenApi.Summary, "The subscriptions of this account and mode"))
  .add(HttpApiEndpoint.get("get", "/api/v1/webhooks/:id", { params: webhook, success: WebhookResponse, error: NotFound })
    .annotate(RequiredScope, "webhooks:manage").annotate(OpenApi.Summary, "One subscription (never its secret)"))
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/webhooks/:id", {
      params: webhook, payload: UpdateWebhookRequest, success: WebhookUpdatedResponse, error: [ValidationFailed, NotFound, Unprocessable]
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
      .annotate(OpenApi.Summary, "Delivery attempts of the last 14 days, newest first; limit 1-100 (25), cursor = next_cursor")
  )
  .add(
    HttpApiEndpoint.get("allDeliveries", "/api/v1/webhook-deliveries", {
      query: {
        ...PageQuery,
        webhook_id: Schema.optionalKey(SafeString.annotate({ description: "one subscription's attempts" })),
        event_type: Schema.optionalKey(SafeString.annotate({ description: "attempts of events of this type" })),
        status: Schema.optionalKey(SafeString.annotate({ description: "the attempt's outcome: succeeded, failed, gone or skipped" })),
        contact_id: Schema.optionalKey(SafeString.annotate({ description: "attempts of events about this contact" })),
        from: Schema.optionalKey(SafeString.annotate({ description: "attempted at or after: a date-time with offset, or a date (YYYY-MM-DD, a UTC day)" })),
        to: Schema.optionalKey(SafeString.annotate({ description: "attempted before: a date-time with offset, or a date (up to the end of that UTC day)" }))
      },
      success: TenantDeliveryListResponse,
      error: ValidationFailed
    }).annotate(RequiredScope, "webhooks:manage")
      .annotate(OpenApi.Summary, "Delivery attempts of all the account's subscriptions (last 14 days), newest first, each with its URL and its event's newest attempt; filters webhook_id, event_type, status, contact_id, from, to")
  )
  .add(
    HttpApiEndpoint.post("test", "/api/v1/webhooks/:id/test", {
      params: webhook, success: TestEventSent.pipe(HttpApiSchema.status(202)), error: [NotFound, Unavailable]
    }).annotate(RequiredScope, "webhooks:manage")
      .annotate(OperatorAction, true).annotate(Audited, { action: "webhook.tested" })
      .annotate(OpenApi.Summary, "Send a signed webhook.test event to this subscription now (attempts in its delivery log)")
  )
  .add(
    HttpApiEndpoint.post("resend", "/api/v1/webhooks/:id/deliveries/:delivery_id/resend", {
      params: { id: SafeString, delivery_id: SafeString }, success: ResendAccepted.pipe(HttpApiSchema.status(202)), error: [NotFound, Unavailable]
    }).annotate(RequiredScope, "webhooks:manage")
      .annotate(OperatorAction, true).annotate(Audited, { action: "webhook_delivery.resent" })
      .annotate(OpenApi.Summary, "Send the event of a past delivery again: same event_id and sequence, new X-Webhook-Delivery")
  )
  .add(
    HttpApiEndpoint.post("replay", "/api/v1/webhooks/:id/replay", {
      params: webhook, payload: ReplayRequest, success: ReplayAccepted.pipe(HttpApiSchema.status(202)),
      error: [ValidationFailed, NotFound, RateLimited, Unavailable]
    }).annotate(RequiredScope, "webhooks:manage")
      .annotate(OperatorAction, true).annotate(Audited, { action: "webhook.replayed" })
      .annotate(OpenApi.Summary, "Send again what was emitted to this subscription in a window of at most 14 days; one replay at a time, 5 an hour")
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

/** A webhook's operationId: its event type in camelCase (`loyalty.points.earned` → `loyaltyPointsEarned`). */
const camelCase = (eventType: string) => eventType.replace(/[._]([a-z])/g, (_, c: string) => c.toUpperCase())

/** Every tag with its description (a group's own annotation first), the raw routes' tags included. */
const documentedTags = (tags: ReadonlyArray<{ readonly name: string; readonly description?: string | undefined }>) => {
  const named = new Set(tags.map((t) => t.name))
  return [
    ...tags.map((t) => {
      const description = t.description ?? TagDescriptions[t.name]
      return description === undefined ? t : { ...t, description }
    }),
    ...Object.entries(TagDescriptions).filter(([name]) => !named.has(name)).map(([name, description]) => ({ name, description }))
  ]
}

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
  .add(HotelsGroup)
  .add(KeysGroup)
  .add(TelephonyIntegrationsGroup)
  .add(ContactsGroup)
  .add(SegmentsGroup)
  .add(BroadcastsGroup)
  .add(PrivacyGroup)
  .add(PrivacyExportGroup)
  .add(StaffGroup)
  .add(StaffSignInGroup)
  .add(StaffSessionGroup)
  .add(AuditGroup)
  .add(OverviewGroup)
  // Every group above gets the body limits: add a new family's group before this line.
  .middleware(BodyLimits)
  .annotate(OpenApi.Title, "Guest Engagement Platform Integration API")
  .annotate(OpenApi.Version, "1.0.0")
  // Relative: the API is served where this document is (each deployment's own host; /docs tries requests there).
  .annotate(OpenApi.Servers, [{ url: "/", description: "The host serving this document" }])
  // Not open source: an SPDX LicenseRef (OpenAPI 3.1 takes an SPDX expression), there being no public licence text to link.
  .annotate(OpenApi.License, { name: "Proprietary: for the platform's customers and their integrators", identifier: "LicenseRef-Proprietary" })
  // Report every invalid field at once, not just the first.
  .annotate(HttpApi.PayloadParseOptions, { errors: "all" })

// OpenAPI 3.1 `webhooks`: what a subscription receives for each event type (signed as the README
// describes), the routes served outside HttpApi (website-event ingestion, the SDK, webhooks in, pages, oidc-provider)
// in rawRoutes/, and what the edge adds to every answer (X-Request-Id; Idempotency-Key on the POSTs honouring it):
// edgeDocument.ts. Bodies accept keys they do not declare (answered as `unknown_field` warnings) except on the routes
// that refuse them (the channels), which keep the generator's `additionalProperties: false` (openBodies.ts).
export const Api = ApiContract.annotate(OpenApi.Transform, (spec) => describeEdge({
  ...spec,
  paths: { ...withScopes(openAcceptingBodies(spec, refusingOperations(ApiContract)), operationScopes(ApiContract)), ...RawRoutePaths } as typeof spec.paths,
  components: { ...spec.components, schemas: { ...RawRouteComponents, ...spec.components.schemas } },
  tags: documentedTags(spec.tags),
  webhooks: {
    ...spec.webhooks,
    ...Object.fromEntries([...WebhookPayloads].map(([eventType, schema]) => {
      const doc = Schema.toJsonSchemaDocument(schema as never)
      return [eventType, {
        post: {
          operationId: camelCase(eventType),
          summary: eventType === "webhook.test"
            ? "webhook.test, sent to one subscription by POST /api/v1/webhooks/{id}/test"
            : `${eventType}, delivered to subscriptions listening to it`,
          requestBody: { required: true, content: { "application/json": { schema: { ...doc.schema, ...(Object.keys(doc.definitions).length > 0 ? { $defs: doc.definitions } : {}) } } } },
          responses: { "200": { description: "Any 2xx acknowledges the delivery" } }
        }
      }]
    }))
  }
}, idempotentOperations(ApiContract)))
