import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Forbidden, RateLimited, Unauthorized, ValidationFailed } from "./errors.ts"
import type { Scope } from "./scopes.ts"
import type { StaffRole } from "./staff.ts"

/** A staff member signed in to the console, when the caller is a session (src/staff/StaffSessions.ts). */
export interface StaffPrincipal {
  readonly staff_id: string
  readonly email: string
  readonly role: StaffRole
}

/**
 * Who is calling, derived from the API key (or a staff session's cookie: `staff` set, live data, `key_id` the staff
 * member's `staff:<id>`): tenant, sandbox or live data, and the key's scopes.
 */
export interface Principal {
  readonly key_id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly scopes: ReadonlyArray<string>
  readonly rate_limit_per_minute: number | null
  readonly staff?: StaffPrincipal | undefined
}
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("app/http/CurrentPrincipal") {}

/**
 * `Authorization: Bearer <key>`. Declared with the lower-case scheme name: HTTP auth schemes are case-insensitive (the
 * credential is matched either way), but Scalar, the /docs renderer, recognises only `bearer` and otherwise shows
 * every request sample with `Authorization: Basic` (HttpApiSecurity.bearer declares `Bearer`).
 */
export const Bearer = HttpApiSecurity.http({ scheme: "bearer" })

/** One scope, or a non-empty list of scopes of which any one will do: only scopes a key can hold (a typo does not compile). */
export type ScopeRequirement = Scope | readonly [Scope, ...Array<Scope>]

/**
 * Endpoint annotation: the scope a key needs for this endpoint (`*` grants all), or several of which any one will do
 * (a read open to `bookings:read` or `guests:read`).
 */
export class RequiredScope extends Context.Service<RequiredScope, ScopeRequirement>()("app/http/RequiredScope") {}

/**
 * Endpoint annotation: an operator action, which a staff session of role `operator` may call besides reading (a
 * viewer may not). One line on the endpoint makes a new action an operator's; API keys are checked by scope only.
 */
export class OperatorAction extends Context.Service<OperatorAction, true>()("app/http/OperatorAction") {}

/** What the audit log records of a successful call (src/staff/auditEdge.ts). */
export interface AuditSpec {
  /** The action's name: `contact.viewed`, `webhook_delivery.resent`, ... */
  readonly action: string
  /** The path parameter holding the contact the call is about. */
  readonly contactParam?: string
  /** Recorded for staff sessions only (reads: an integration's reads are not a person's look at a guest). */
  readonly staffOnly?: boolean
}

/** Endpoint annotation: a successful call is written to the audit log as this action, its path parameters as details. */
export class Audited extends Context.Service<Audited, AuditSpec>()("app/http/Audited") {}

/** The scopes an endpoint's annotation accepts, any one of them enough. */
export const acceptedScopes = (required: ScopeRequirement): ReadonlyArray<string> =>
  typeof required === "string" ? [required] : required

export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentPrincipal }>()(
  "app/http/Authentication",
  { error: [Unauthorized, Forbidden, RateLimited], security: { bearer: Bearer } }
) {}

/** Turns schema decoding failures into the core error shape with per-field details. */
export class ValidationErrors extends HttpApiMiddleware.Service<ValidationErrors>()("app/http/ValidationErrors", {
  error: ValidationFailed
}) {}

/** A telephony provider integration, derived from its webhook token: one tenant, one provider. */
export interface Integration {
  readonly integration_id: string
  readonly tenant_id: string
  readonly provider: string
}
export class CurrentIntegration extends Context.Service<CurrentIntegration, Integration>()("app/http/CurrentIntegration") {}

/** `Authorization: Bearer <WEBHOOK_TOKEN>` of a CTI integration, plus the per-tenant telephony rate limit. */
export class CtiAuthentication extends HttpApiMiddleware.Service<CtiAuthentication, { provides: CurrentIntegration }>()(
  "app/http/CtiAuthentication",
  { error: [Unauthorized, Forbidden, RateLimited], security: { bearer: Bearer } }
) {}
