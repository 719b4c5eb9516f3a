import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ApiKey, CreateIntegrationRequest, CreateKeyRequest, IntegrationCreated, KeyCreated, TelephonyIntegration } from "./apiKey.ts"
import { Conflict, NotFound, ValidationFailed } from "./errors.ts"
import { CreateHotelRequest, Hotel, UpdateHotelRequest } from "./hotel.ts"
import { listOf, ok, PageQuery } from "./list.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"

// The account's own configuration over the API: hotels (hotels:manage to write, guests:read to read), API keys and
// telephony webhook tokens (keys:manage, which `*` does not grant). Ids in paths are UUIDs: another text is 400 naming
// the parameter, another account's id 404.

const created = <S extends Parameters<typeof ok>[0]>(data: S, description: string) =>
  ok(data).pipe(HttpApiSchema.status(201)).annotate({ description })

const hotel = { hotel_id: SafeString }

export const HotelsGroup = HttpApiGroup.make("hotels")
  .add(HttpApiEndpoint.post("create", "/api/v1/hotels", {
    payload: CreateHotelRequest, success: created(Hotel, "The new hotel"), error: [ValidationFailed, Conflict]
  }).annotate(RequiredScope, "hotels:manage")
    .annotate(OpenApi.Summary, "Add a hotel; reservations and guests may name it by hotel_code at once (409 naming code or name if taken)"))
  .add(HttpApiEndpoint.get("list", "/api/v1/hotels", { query: PageQuery, success: listOf("hotels", Hotel), error: ValidationFailed })
    .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "The account's hotels (live and sandbox share them), newest first"))
  .add(HttpApiEndpoint.get("get", "/api/v1/hotels/:hotel_id", { params: hotel, success: ok(Hotel), error: [ValidationFailed, NotFound] })
    .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "One hotel"))
  .add(HttpApiEndpoint.patch("update", "/api/v1/hotels/:hotel_id", {
    params: hotel, payload: UpdateHotelRequest, success: ok(Hotel), error: [ValidationFailed, NotFound, Conflict]
  }).annotate(RequiredScope, "hotels:manage")
    .annotate(OpenApi.Summary, "Change a hotel: the fields given are set, null clears an optional one"))
  .middleware(ValidationErrors)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The account's hotels, shared by its live and sandbox modes: what reservations and guests name by hotel_id, hotel_code or hotel_name")

const key = { key_id: SafeString }

export const KeysGroup = HttpApiGroup.make("keys")
  .add(HttpApiEndpoint.post("create", "/api/v1/keys", {
    payload: CreateKeyRequest, success: created(KeyCreated, "The new key, its secret shown this once"), error: ValidationFailed
  }).annotate(RequiredScope, "keys:manage").annotate(OpenApi.Summary, "Create an API key of either mode; the secret is in this answer only"))
  .add(HttpApiEndpoint.get("list", "/api/v1/keys", { query: PageQuery, success: listOf("keys", ApiKey), error: ValidationFailed })
    .annotate(RequiredScope, "keys:manage").annotate(OpenApi.Summary, "The account's keys, live and sandbox, revoked ones included, newest first (never a secret)"))
  .add(HttpApiEndpoint.delete("revoke", "/api/v1/keys/:key_id", { params: key, success: ok(ApiKey), error: [ValidationFailed, NotFound] })
    .annotate(RequiredScope, "keys:manage").annotate(OpenApi.Summary, "Revoke a key: refused (401) within 5 s on every ingress, at once on this one"))
  .middleware(ValidationErrors)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "API keys of the account, both modes (scope keys:manage, which * does not grant); a secret is shown once, when made")

const integration = { integration_id: SafeString }

export const TelephonyIntegrationsGroup = HttpApiGroup.make("telephonyIntegrations")
  .add(HttpApiEndpoint.post("create", "/api/v1/telephony/integrations", {
    payload: CreateIntegrationRequest, success: created(IntegrationCreated, "The new integration, its CTI webhook token shown this once"),
    error: ValidationFailed
  }).annotate(RequiredScope, "keys:manage").annotate(OpenApi.Summary, "A telephony provider's webhook token for /api/webhooks/cti, shown once"))
  .add(HttpApiEndpoint.get("list", "/api/v1/telephony/integrations", {
    query: PageQuery, success: listOf("integrations", TelephonyIntegration), error: ValidationFailed
  }).annotate(RequiredScope, "keys:manage").annotate(OpenApi.Summary, "The account's telephony integrations, newest first (never a token)"))
  .add(HttpApiEndpoint.delete("revoke", "/api/v1/telephony/integrations/:integration_id", {
    params: integration, success: ok(TelephonyIntegration), error: [ValidationFailed, NotFound]
  }).annotate(RequiredScope, "keys:manage").annotate(OpenApi.Summary, "Revoke an integration's token: refused (401) within 5 s on every ingress"))
  .middleware(ValidationErrors)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Telephony providers' webhook tokens for /api/webhooks/cti (scope keys:manage); a token is shown once, when made")
