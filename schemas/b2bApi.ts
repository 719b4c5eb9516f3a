import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  AccountCreated, AccountDetailResponse, AccountListResponse, AccountResponse, AddContactRequest, AssignAttributionRequest,
  AttributionResponse, ContactLinked, ContactLinkedResponse, CreateAccountRequest, CreateDealRequest, DealCreated,
  DealListResponse, DealResponse, UpdateAccountRequest, UpdateDealRequest
} from "./b2b.ts"
import { Conflict, InternalError, NotFound, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"

// The spec's base path for the family is /b2b (its endpoint table and the issue agree), without /api/v1.

const id = { id: SafeString }
const page = { limit: Schema.optionalKey(SafeString), cursor: Schema.optionalKey(SafeString) }
const writeErrors = [Unavailable, InternalError] as const

export const B2bGroup = HttpApiGroup.make("b2b")
  .add(
    HttpApiEndpoint.post("createAccount", "/b2b/accounts", {
      payload: CreateAccountRequest,
      success: AccountCreated.pipe(HttpApiSchema.status(201)).annotate({ description: "A new account: its id, depth and path" }),
      error: [Conflict, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "b2b:write")
      .annotate(OpenApi.Summary, "Create an account (agency, tour operator, OTA, corporate, consortium) under an optional parent")
  )
  .add(
    HttpApiEndpoint.get("listAccounts", "/b2b/accounts", {
      query: { code: Schema.optionalKey(SafeString), ...page },
      success: AccountListResponse,
      error: ValidationFailed
    }).annotate(RequiredScope, "b2b:read")
      .annotate(OpenApi.Summary, "Accounts by name; `code` finds the account holding an agency, promo, rate or IATA code or external id")
  )
  .add(
    HttpApiEndpoint.get("getAccount", "/b2b/accounts/:id", { params: id, success: AccountDetailResponse, error: NotFound })
      .annotate(RequiredScope, "b2b:read")
      .annotate(OpenApi.Summary, "An account with its children, contacts and production over it and its descendants")
  )
  .add(
    HttpApiEndpoint.patch("updateAccount", "/b2b/accounts/:id", {
      params: id,
      payload: UpdateAccountRequest,
      success: AccountResponse,
      error: [NotFound, Conflict, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "b2b:write")
      .annotate(OpenApi.Summary, "JSON merge patch; `parent_id: null` detaches, each codes list sent replaces that list")
  )
  .add(
    HttpApiEndpoint.post("addContact", "/b2b/accounts/:id/contacts", {
      params: id,
      payload: AddContactRequest,
      success: [
        ContactLinked.pipe(HttpApiSchema.status(201)).annotate({ description: "The person linked to the account" }),
        ContactLinkedResponse.annotate({ description: "The person was already linked: role, title and primary updated" })
      ],
      error: [NotFound, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "b2b:write")
      .annotate(OpenApi.Summary, "A person at the account, resolved to the platform's contact (same phone or email, same contact)")
  )
  .add(
    HttpApiEndpoint.post("createDeal", "/b2b/deals", {
      payload: CreateDealRequest,
      success: DealCreated.pipe(HttpApiSchema.status(201)).annotate({ description: "A new deal" }),
      error: [Conflict, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "b2b:write")
      .annotate(OpenApi.Summary, "A deal of an account; a won corporate_rate deal registers its rate codes on the account")
  )
  .add(
    HttpApiEndpoint.patch("updateDeal", "/b2b/deals/:id", {
      params: id,
      payload: UpdateDealRequest,
      success: DealResponse,
      error: [NotFound, Conflict, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "b2b:write")
      .annotate(OpenApi.Summary, "Change a deal's fields or move its stage; won and lost are final")
  )
  .add(
    HttpApiEndpoint.get("listDeals", "/b2b/deals", {
      query: { account_id: Schema.optionalKey(SafeString), stage: Schema.optionalKey(SafeString), ...page },
      success: DealListResponse,
      error: ValidationFailed
    }).annotate(RequiredScope, "b2b:read")
      .annotate(OpenApi.Summary, "Deals, newest first, of one account (`account_id`) or all; `stage` filters")
  )
  .add(
    HttpApiEndpoint.put("assignAttribution", "/b2b/reservations/:reservation_id/attribution", {
      params: { reservation_id: SafeString },
      payload: AssignAttributionRequest,
      success: AttributionResponse,
      error: [NotFound, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "b2b:write")
      .annotate(OpenApi.Summary, "Attribute a reservation to an account by hand (null: to none); it sticks through later upserts")
  )
  .add(
    HttpApiEndpoint.delete("clearAttribution", "/b2b/reservations/:reservation_id/attribution", {
      params: { reservation_id: SafeString },
      success: AttributionResponse,
      error: [NotFound, ...writeErrors]
    }).annotate(RequiredScope, "b2b:write")
      .annotate(OpenApi.Summary, "Drop a manual attribution: the automatic rules decide again, now")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
