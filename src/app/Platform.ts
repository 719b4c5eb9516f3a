import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Schedule } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import { ActorNames, Actors } from "../../actors/registry.ts"
import { Worker } from "../../actors/runtime/Worker.ts"
import { EmailTransport } from "../../actors/message/EmailTransport.ts"
import { MessageDeliverer } from "../../actors/message/MessageDeliverer.ts"
import { WhatsAppTransport } from "../../actors/message/WhatsAppTransport.ts"
import { JourneyScheduler } from "../../actors/journey/JourneyScheduler.ts"
import { BroadcastSweep } from "../../actors/broadcast/BroadcastSweep.ts"
import { journeyDateSignals } from "../../actors/journey/dateTrigger.ts"
import { ReservationDateScan } from "../../actors/shared/ReservationDateScan.ts"
import { webhookDateEvents } from "../../actors/webhook/dateScan.ts"
import { AuctionSweeper } from "../../actors/loyalty/auctionSweep.ts"
import { JourneyConfig } from "../../core/journey/JourneyConfig.ts"
import { WebhookDeliverer } from "../../actors/webhook/WebhookDeliverer.ts"
import { OutboxRelay } from "../../actors/runtime/OutboxRelay.ts"
import { Api } from "../../schemas/api.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { Admission } from "../../streams/Admission.ts"
import { sheddingServer } from "../http/sheddingServer.ts"
import { Nats } from "../../streams/Nats.ts"
import { ensureTopology } from "../../streams/topology.ts"
import { ApiKeys } from "../auth/ApiKeys.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database, migrateDatabase } from "../../core/db/Database.ts"
import { Logging } from "../../core/observability/log.ts"
import { natsFailure } from "../../streams/natsErrors.ts"
import { HealthRoutes } from "../http/health.ts"
import { ForwardedFor } from "../http/forwarded.ts"
import { IngressObservability, WorkerObservability } from "../http/requestEdge.ts"
import { Idempotency } from "../http/idempotency/Idempotency.ts"
import { IdempotencyStore } from "../http/idempotency/IdempotencyStore.ts"
import { BodyLimitsLive } from "../http/bodyLimits.ts"
import { AuthenticationLive, ValidationErrorsLive } from "../http/middleware.ts"
import { B2bLive } from "../b2b/http.ts"
import { LoyaltyLive } from "../loyalty/http.ts"
import { LoyaltyCreditLive } from "../loyalty/creditHttp.ts"
import { LoyaltyAuctionsLive } from "../loyalty/auctionHttp.ts"
import { ContactCallsLive } from "../telephony/contactCalls.ts"
import { CtiAuthenticationLive } from "../telephony/ctiAuthentication.ts"
import { EventsLive } from "../event/http.ts"
import { FieldsLive } from "../guest/fieldsHttp.ts"
import { GuestsLive } from "../guest/http.ts"
import { ContactsLive } from "../contact/http.ts"
import { ReservationsLive } from "../reservation/http.ts"
import { TelephonyLive } from "../telephony/http.ts"
import { Integrations } from "../telephony/Integrations.ts"
import { WebhooksLive } from "../webhook/http.ts"
import { WebhookSends } from "../webhook/WebhookSends.ts"
import { ChannelsLive } from "../channel/http.ts"
import { ChannelSettings } from "../channel/ChannelSettings.ts"
import { Hotels } from "../tenancy/Hotels.ts"
import { HotelsLive } from "../tenancy/hotelsHttp.ts"
import { KeysLive, TelephonyIntegrationsLive } from "../tenancy/keysHttp.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { MessagingConfig } from "../../core/message/MessagingConfig.ts"
import { MessagesLive } from "../message/http.ts"
import { OverviewLive } from "../overview/http.ts"
import { JourneyValidationErrorsLive } from "../journey/edge.ts"
import { JourneysLive } from "../journey/http.ts"
import { Segments } from "../segment/Segments.ts"
import { SegmentsLive, SegmentValidationErrorsLive } from "../segment/http.ts"
import { Broadcasts } from "../broadcast/Broadcasts.ts"
import { BroadcastsLive, BroadcastValidationErrorsLive } from "../broadcast/http.ts"
import { PrivacyExportLive, PrivacyLive, PrivacyValidationErrorsLive } from "../privacy/http.ts"
import { PrivacyRequests } from "../privacy/PrivacyRequests.ts"
import { PrivacyRunner } from "../privacy/PrivacyRunner.ts"
import { PrivacyKey } from "../../core/privacy/PrivacyKey.ts"
import { JourneyDefinitions } from "../journey/JourneyDefinitions.ts"
import { UnsubscribeRoutes } from "../message/unsubscribe.ts"
import { WhatsAppWebhookRoutes } from "../message/whatsappWebhook.ts"
import { Catalogue } from "../website/Catalogue.ts"
import { WebsiteEventRoutes } from "../website/routes.ts"
import { WebSources } from "../website/WebSources.ts"
import { WebsiteSourcesLive } from "../website/sourcesHttp.ts"
import { SdkRoutes } from "../sdk/routes.ts"
import { ConsoleRoutes } from "../console/routes.ts"
import { CdpBulkRunner } from "../cdp/BulkRunner.ts"
import { CdpSettings } from "../cdp/CdpSettings.ts"
import { CdpLive } from "../cdp/http.ts"
import { OidcRoutes } from "../oidc/routes.ts"
import { OidcProvider } from "../oidc/OidcProvider.ts"
import { CodeMailer } from "../oidc/CodeMailer.ts"
import { ClubClientAuthenticationLive, MemberAuthenticationLive } from "../oidc/authentication.ts"
import { OidcClientsLive } from "../oidc/clientsHttp.ts"
import { LoyaltyMeLive } from "../loyalty/meHttp.ts"
import { LoyaltyClubLive } from "../loyalty/clubHttp.ts"
import { NewsletterConfigLive, NewsletterLive } from "../newsletter/http.ts"
import { NewsletterConfirmLive } from "../newsletter/confirm.ts"
import { NewsletterSettings } from "../newsletter/NewsletterSettings.ts"
import { TurnstileVerifier } from "../newsletter/TurnstileVerifier.ts"
import { NewsletterValidationErrorsLive } from "../newsletter/widgetCaller.ts"
import { Suppressions } from "../privacy/Suppressions.ts"
import { AuditLive, StaffLive, StaffSessionAuthenticationLive, StaffSessionLive, StaffSignInLive, StaffValidationErrorsLive } from "../staff/http.ts"
import { StaffAccounts } from "../staff/StaffAccounts.ts"
import { StaffSessions } from "../staff/StaffSessions.ts"
import { StaffSignIn } from "../staff/StaffSignIn.ts"
import { Audit } from "../staff/Audit.ts"

export type Role = "all" | "ingress" | "worker"

/** Database created and migrated before anything connects to it (a DatabaseFailure fails the start, typed). */
const Migrated = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  yield* migrateDatabase(config.databaseUrl)
}))

/**
 * JetStream answering "temporarily unavailable" or not at all while a process starts (a cluster electing leaders, a
 * node it reached cut from its peers, consumers still being created by another process): retried for a minute
 * instead of exiting into a restart loop. A 3-node cluster's worker failed its start this way in the NATS
 * peer-partition fault test.
 */
const whileJetStreamUnavailable = Schedule.min([Schedule.exponential("200 millis"), Schedule.spaced("5 seconds")]).pipe(
  Schedule.jittered,
  Schedule.upTo({ duration: "60 seconds" })
)

/** Streams and consumers exist before ingress publishes or workers consume (a NatsFailure fails the start, typed). */
const Topology = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const messaging = yield* MessagingConfig
  const { jsm } = yield* Nats
  yield* Effect.tryPromise({
    try: () => ensureTopology(jsm, {
      namespace: config.namespace, partitions: config.partitions, replicas: config.streamReplicas, ackWaitMs: config.ackWaitMs, actors: ActorNames,
      // A send attempt whose worker died is redelivered once no attempt can still be running.
      deliveryAckWaitMs: 2 * messaging.sendTimeoutMs + 5_000
    }),
    catch: natsFailure
  }).pipe(Effect.retry({ schedule: whileJetStreamUnavailable, while: (e) => e._tag === "NatsUnavailable" }))
}))

/** PostgreSQL and NATS connections, built after migrations; topology ensured before anyone uses them. */
export const Infrastructure = (name: string) =>
  Layer.provideMerge(
    Topology,
    Layer.mergeAll(Database.layer, Nats.layer(name)).pipe(Layer.provide(Migrated))
  )

/** Sign-in code emails leave through the messaging family's SMTP transport (only this composition root may wire it). */
const SignInMail = Layer.effect(CodeMailer, Effect.gen(function*() {
  const transport = yield* EmailTransport
  return CodeMailer.of({ send: transport.send })
})).pipe(Layer.provide(EmailTransport.layer))

const ApiRoutes = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }),
  HttpApiScalar.layer(Api, { path: "/docs" }),
  HealthRoutes,
  IngressObservability,
  ForwardedFor,
  WhatsAppWebhookRoutes,
  UnsubscribeRoutes,
  WebsiteEventRoutes,
  SdkRoutes,
  ConsoleRoutes,
  OidcRoutes
).pipe(
  Layer.provide([ReservationsLive, GuestsLive, FieldsLive, EventsLive, WebhooksLive, TelephonyLive, ContactCallsLive, MessagesLive, B2bLive, ChannelsLive, LoyaltyLive, LoyaltyCreditLive, LoyaltyAuctionsLive, JourneysLive, WebsiteSourcesLive, NewsletterConfigLive, NewsletterLive, NewsletterConfirmLive, OidcClientsLive, LoyaltyMeLive, LoyaltyClubLive, CdpLive, ContactsLive, SegmentsLive, BroadcastsLive, PrivacyLive, PrivacyExportLive, OverviewLive]),
  Layer.provide([HotelsLive, KeysLive, TelephonyIntegrationsLive]),
  // Staff and the audit log: the console's sign-in, sessions (read by the authentication middleware too) and audit.
  Layer.provide([StaffLive, StaffSignInLive, StaffSessionLive, AuditLive]),
  Layer.provide([AuthenticationLive, CtiAuthenticationLive, ValidationErrorsLive, JourneyValidationErrorsLive, SegmentValidationErrorsLive, BroadcastValidationErrorsLive, PrivacyValidationErrorsLive, ChannelSettings.layer, JourneyDefinitions.layer, Segments.layer, Broadcasts.layer, PrivacyRequests.layer, BodyLimitsLive, WebSources.layer, Catalogue.layer, NewsletterValidationErrorsLive, TurnstileVerifier.layer, MemberAuthenticationLive, ClubClientAuthenticationLive, CdpSettings.layer]),
  Layer.provide([StaffValidationErrorsLive, StaffSessionAuthenticationLive, StaffAccounts.layer, StaffSignIn.layer]),
  Layer.provide([StaffSessions.layer, Audit.layer]),
  // Loyalty SSO: the provider (rebuilt on key rotation) and the sign-in code email (also the staff sign-in's), sent from the ingress.
  Layer.provide([OidcProvider.layer, SignInMail]),
  // Idempotency-Key: checked by the authentication, answers stored by the edge; one store for both.
  Layer.provide(Idempotency.layer),
  Layer.provide([NewsletterSettings.layer.pipe(Layer.provide(WebhookConfig.layer)), WebhookSends.layer, ApiKeys.layer, Integrations.layer, Hotels.layer, RateLimiter.layer, ActorClient.layer, WebhookConfig.layer, IdempotencyStore.layer, Suppressions.layer])
)

/**
 * Connections waiting to be accepted. Node's default (511) overflowed in the bench's overload phase when a burst of
 * clients opened connections while the ingress was busy: the kernel dropped their SYNs and the clients' retransmissions
 * (1, 3, 7 s) became answers seconds late. Linux caps it at net.core.somaxconn (4096 here).
 */
const LISTEN_BACKLOG = 4096

/** Writes the ingress takes in beyond its admission limit: the ones being read and authenticated, refused or admitted there. */
const WRITES_BEING_READ = 64

/**
 * The API's HTTP server. One admission limit per process: the server's bound on writes in the application, the
 * authentication's early refusal and the actor calls all read the same one.
 */
export const IngressServer = (port: number) =>
  Layer.unwrap(Effect.map(Admission, (admission) =>
    HttpRouter.serve(ApiRoutes, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(NodeHttpServer.layer(() => sheddingServer(() => admission.limit() + WRITES_BEING_READ), { port, host: "0.0.0.0", backlog: LISTEN_BACKLOG }))
    ))).pipe(Layer.provide(Admission.layer))

/**
 * What a worker process runs: the actors, outbound webhook delivery, message delivery to guests, journey clocks, and
 * the one reservation date scan, whose parts fire the webhook date events and start `reservation_date` journeys.
 */
const WorkerRole = Layer.mergeAll(
  Worker.layer(Actors),
  WebhookDeliverer.layer,
  MessageDeliverer.layer.pipe(Layer.provide([EmailTransport.layer, WhatsAppTransport.layer])),
  JourneyScheduler.layer.pipe(Layer.provide(JourneyConfig.layer)),
  BroadcastSweep.layer,
  ReservationDateScan.layer({ webhooks: webhookDateEvents, journeys: journeyDateSignals }),
  AuctionSweeper.layer,
  CdpBulkRunner.layer.pipe(Layer.provide([ActorClient.layer, Hotels.layer, Suppressions.layer]), Layer.provide(Admission.layer)),
  PrivacyRunner.layer
).pipe(Layer.provide([WebhookConfig.layer, OutboxRelay.layer]))

/** The whole platform for a role, given AppConfig; every line it logs is a JSON line on stderr (`Logging`). */
export const Platform = (role: Role, port: number) => {
  const app = role === "ingress"
    ? IngressServer(port)
    : role === "worker"
    ? Layer.mergeAll(WorkerRole, HealthOnly(port))
    : Layer.mergeAll(IngressServer(port), WorkerRole)
  // One privacy key per process: the ingress's suppression checks, the workers' sends and bulk jobs hash with it.
  return app.pipe(Layer.provideMerge(Infrastructure(`gep-${role}`)), Layer.provideMerge(Layer.mergeAll(MessagingConfig.layer, PrivacyKey.layer)), Layer.provideMerge(Logging))
}

/** A worker-only process still answers /healthz and /readyz for its orchestrator. */
const HealthOnly = (port: number) =>
  HttpRouter.serve(Layer.mergeAll(HealthRoutes, WorkerObservability), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "0.0.0.0" }))
  )
