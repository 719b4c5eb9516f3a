import { Context, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Conflict, Forbidden, NotFound, RateLimited, Unauthorized, Unprocessable, ValidationFailed } from "./errors.ts"
import { listOf, ok, PageQuery } from "./list.ts"
import { Authentication, RequiredScope } from "./security.ts"
import { AddStaffRequest, AuditEntry, ChangeStaffRequest, Session, SignInRequest, SignInSent, Staff, VerifyRequest } from "./staff.ts"
import { SafeString } from "./text.ts"

// Staff and the audit log (issue 27): the console's people, their emailed-code sign-in and session, and what they did.

const opt = Schema.optionalKey

/** The cookie a staff session travels in (HttpOnly, SameSite=Strict, Path=/; Secure unless served to a loopback host). */
export const STAFF_SESSION_COOKIE = "gep_staff_session"
export const StaffSessionCookie = HttpApiSecurity.apiKey({ in: "cookie", key: STAFF_SESSION_COOKIE }).pipe(
  HttpApiSecurity.annotate(OpenApi.Description, "A staff session (POST /api/v1/staff/sign-in/verify); state-changing requests also send X-CSRF-Token")
)

/** Schema failures of the staff groups: 422 naming each field of a body, 400 for a bad path or query (src/http/definitionErrors.ts). */
export class StaffValidationErrors extends HttpApiMiddleware.Service<StaffValidationErrors>()("app/http/StaffValidationErrors", {
  error: [ValidationFailed, Unprocessable]
}) {}

/** The signed-in staff member's session (its token's digest names it; the principal is in CurrentPrincipal). */
export interface StaffSessionInfo {
  readonly token_hash: Uint8Array
  readonly session: Session
}
export class CurrentStaffSession extends Context.Service<CurrentStaffSession, StaffSessionInfo>()("app/http/CurrentStaffSession") {}

/** The session's own routes (who am I, sign out): the cookie only, never an API key. */
export class StaffSessionAuthentication extends HttpApiMiddleware.Service<StaffSessionAuthentication, { provides: CurrentStaffSession }>()(
  "app/http/StaffSessionAuthentication",
  { error: [Unauthorized, Forbidden], security: { session: StaffSessionCookie } }
) {}

const staff = { staff_id: SafeString.annotate({ description: "a staff_id (a UUID) of this account" }) }

export const StaffGroup = HttpApiGroup.make("staff")
  .add(HttpApiEndpoint.post("add", "/api/v1/staff", {
    payload: AddStaffRequest,
    success: ok(Staff).pipe(HttpApiSchema.status(201)).annotate({ description: "The new staff member: they sign in with a code emailed to the address" }),
    error: [Conflict]
  }).annotate(RequiredScope, "staff:manage")
    .annotate(OpenApi.Summary, "Add a staff member with a role (409 STAFF_EXISTS when the address is already an active member)"))
  .add(HttpApiEndpoint.get("list", "/api/v1/staff", { query: PageQuery, success: listOf("staff", Staff), error: ValidationFailed })
    .annotate(RequiredScope, "staff:manage")
    .annotate(OpenApi.Summary, "The account's active staff, newest first"))
  .add(HttpApiEndpoint.patch("change", "/api/v1/staff/:staff_id", {
    params: staff, payload: ChangeStaffRequest, success: ok(Staff), error: [ValidationFailed, NotFound]
  }).annotate(RequiredScope, "staff:manage")
    .annotate(OpenApi.Summary, "Change a staff member's role (their sessions take it at their next request)"))
  .add(HttpApiEndpoint.delete("remove", "/api/v1/staff/:staff_id", {
    params: staff, success: HttpApiSchema.NoContent.annotate({ description: "Removed; every session of the member ended" }),
    error: [ValidationFailed, NotFound]
  }).annotate(RequiredScope, "staff:manage")
    .annotate(OpenApi.Summary, "Remove a staff member: their sessions end at once"))
  .middleware(StaffValidationErrors)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Staff of the account (scope staff:manage, which * does not grant): who may sign in to the console, with which role")

export const StaffSignInGroup = HttpApiGroup.make("staffSignIn")
  .add(HttpApiEndpoint.post("signIn", "/api/v1/staff/sign-in", {
    payload: SignInRequest,
    success: ok(SignInSent).pipe(HttpApiSchema.status(202)).annotate({ description: "Sent to every account where the address is staff (or to none)" }),
    error: RateLimited
  }).annotate(OpenApi.Summary, "Email a one-time sign-in code to a staff address (no key; the answer is the same for any address)"))
  .add(HttpApiEndpoint.post("verify", "/api/v1/staff/sign-in/verify", {
    payload: VerifyRequest,
    success: ok(Session).annotate({ description: "Signed in: the session, its cookie set (gep_staff_session)" }),
    error: [Unprocessable, RateLimited]
  }).annotate(OpenApi.Summary, "Exchange the emailed code for a session cookie; 422 naming code when wrong (attempts_left), expired or used"))
  .middleware(StaffValidationErrors)
  .annotate(OpenApi.Description, "Staff sign-in: an emailed one-time code, exchanged for a session cookie that authenticates the whole API")

export const StaffSessionGroup = HttpApiGroup.make("staffSession")
  .add(HttpApiEndpoint.get("me", "/api/v1/staff/me", { success: ok(Session) })
    .annotate(OpenApi.Summary, "The session of the cookie: who is signed in, to which account, with which role and CSRF token"))
  .add(HttpApiEndpoint.post("signOut", "/api/v1/staff/sign-out", {
    success: HttpApiSchema.NoContent.annotate({ description: "Signed out: the session ended, its cookie cleared" })
  }).annotate(OpenApi.Summary, "End the session of the cookie (X-CSRF-Token required)"))
  .middleware(StaffSessionAuthentication)
  .annotate(OpenApi.Description, "A staff session's own routes, for the cookie only")

export const AuditGroup = HttpApiGroup.make("audit")
  .add(HttpApiEndpoint.get("list", "/api/v1/audit", {
    query: {
      contact_id: opt(SafeString.annotate({ description: "entries about this contact (a UUID)" })),
      staff_id: opt(SafeString.annotate({ description: "entries of this staff member (a UUID)" })),
      action: opt(SafeString.annotate({ description: "one action, e.g. contact.viewed" })),
      ...PageQuery
    },
    success: listOf("entries", AuditEntry),
    error: ValidationFailed
  }).annotate(RequiredScope, "audit:read")
    .annotate(OpenApi.Summary, "Who opened which contact and who did which action, newest first; filters combine (AND)"))
  .middleware(StaffValidationErrors)
  .middleware(Authentication)
  .annotate(OpenApi.Description, "The audit log: contacts opened by staff, and the actions of staff and keys")
