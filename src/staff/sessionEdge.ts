import { Context, Effect, Option } from "effect"
import { HttpBody, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { acceptedScopes, type Principal, RequiredScope } from "../../schemas/api.ts"
import { Forbidden, Unauthorized } from "../../schemas/errors.ts"
import { Audited, type AuditSpec, OperatorAction } from "../../schemas/security.ts"
import { isUuid } from "../../schemas/common.ts"
import { hasScope } from "../auth/keys.ts"
import { Audit } from "./Audit.ts"
import { csrfMatches } from "./cookie.ts"
import { maskValue } from "./masking.ts"
import { ADMIN_SESSION_SCOPES, isReadMethod, roleAllows, roleNeeded, sessionScopes } from "./roles.ts"
import { type LiveSession, StaffSessions } from "./StaffSessions.ts"

// The staff session's part of the authentication middleware (src/http/middleware.ts): the cookie, its CSRF token and
// role checks before the call, the audit entry and a viewer's masking after it. Reached only without a bearer token.

/** A session's principal: live data, the member's role deciding what it may call, rate-limited by its staff id. */
export const staffPrincipal = ({ session }: LiveSession, rateLimit: number | null): Principal => ({
  key_id: `staff:${session.staff.staff_id}`,
  tenant_id: session.tenant_id,
  sandbox: false,
  scopes: sessionScopes(session.role),
  rate_limit_per_minute: rateLimit,
  staff: { staff_id: session.staff.staff_id, email: session.staff.email, role: session.role }
})

/**
 * A cookie request another site may have made: refused when the browser says it came from another site (SameSite=Strict
 * already keeps the cookie off such requests; refused all the same), and a write without the session's CSRF token.
 */
export const forgeryRefusal = (token: string, request: HttpServerRequest.HttpServerRequest): Forbidden | undefined => {
  if (request.headers["sec-fetch-site"] === "cross-site") {
    return Forbidden.of("A staff session is not accepted from another site", {}, "CSRF_TOKEN_INVALID")
  }
  if (!isReadMethod(request.method) && !csrfMatches(token, request.headers["x-csrf-token"])) {
    return Forbidden.of("Missing or wrong X-CSRF-Token: send the csrf_token of the session on every request but GET, HEAD and OPTIONS",
      { "x-csrf-token": ["must be the session's csrf_token"] }, "CSRF_TOKEN_INVALID")
  }
  return undefined
}

/** A role may not call the endpoint: 403 naming the role and the one it needs (an admin's refusal names the scope). */
const roleRefusal = (principal: Principal, endpoint: HttpApiEndpoint.Top): Forbidden | undefined => {
  const role = principal.staff!.role
  const required = Option.getOrUndefined(Context.getOption(endpoint.annotations, RequiredScope))
  const accepted = required === undefined ? [] : acceptedScopes(required)
  if (role === "admin") {
    return accepted.length === 0 || accepted.some((s) => hasScope(ADMIN_SESSION_SCOPES, s)) ? undefined
      : Forbidden.of(`A staff session may not call this endpoint: it needs a key holding ${accepted.join(" or ")}`, {
        role, required_role: null, required_scope: accepted.join(" or ")
      })
  }
  const needed = roleNeeded({ method: endpoint.method, accepted, operatorAction: Context.getOption(endpoint.annotations, OperatorAction)._tag === "Some" })
  return roleAllows(role, needed) ? undefined
    : Forbidden.of(`The ${role} role may not call this endpoint: it needs the ${needed} role`, { role, required_role: needed })
}

/** A viewer's JSON answer with every email address and phone number masked; an answer that cannot be read is refused. */
const masked = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  if (body._tag === "Empty") return Effect.succeed(response)
  if (body._tag !== "Uint8Array" || !body.contentType.startsWith("application/json")) {
    // Fail closed: an answer the edge cannot mask is not shown to a viewer.
    return Effect.fail(Forbidden.of("This answer is not available to the viewer role", { role: "viewer", required_role: "operator" }))
  }
  const value = maskValue(JSON.parse(Buffer.from(body.body).toString("utf8")))
  return Effect.succeed(HttpServerResponse.setBody(response, HttpBody.uint8Array(new TextEncoder().encode(JSON.stringify(value)), body.contentType)))
}

/**
 * The staff session's checks and what follows every authenticated call, built once with the middleware's layer: the
 * cookie's principal (only without a bearer token), and after a successful call its audit entry (when the endpoint is
 * marked `Audited`) and a viewer's masking. For an API key, what follows is one annotation lookup: the bearer path is
 * the benchmark's hot path.
 */
export const makeSessionEdge = Effect.gen(function*() {
  const sessions = yield* StaffSessions
  const audit = yield* Audit

  /** The cookie's session, checked for this request: live, same-site, its CSRF token on a write, its role allowed here. */
  const principal = Effect.fn("StaffSession.principal")(function*(
    token: string, request: HttpServerRequest.HttpServerRequest, endpoint: HttpApiEndpoint.Top, rateLimit: number | null
  ) {
    const live = yield* sessions.authenticate(token)
    if (live === undefined) return yield* Unauthorized.of("The staff session has ended or expired: sign in again")
    const forged = forgeryRefusal(token, request)
    if (forged !== undefined) return yield* forged
    const p = staffPrincipal(live, rateLimit)
    const refused = roleRefusal(p, endpoint)
    if (refused !== undefined) return yield* refused
    return p
  })

  /** The audit entry of a successful call the endpoint marks, its path parameters as details. */
  const record = Effect.fn("StaffSession.audit")(function*(p: Principal, spec: AuditSpec) {
    if (spec.staffOnly === true && p.staff === undefined) return
    const params = Option.match(yield* Effect.serviceOption(HttpRouter.RouteContext), {
      onNone: (): Readonly<Record<string, string | undefined>> => ({}), onSome: (r) => r.params
    })
    const contact = spec.contactParam === undefined ? undefined : params[spec.contactParam]
    const details = Object.fromEntries(Object.entries(params).filter(([k, v]) => k !== spec.contactParam && v !== undefined))
    yield* audit.record({
      scope: { tenant_id: p.tenant_id, sandbox: p.sandbox },
      actor: p.staff === undefined ? { type: "api_key", id: p.key_id } : { type: "staff", id: p.staff.staff_id },
      action: spec.action,
      contact_id: contact !== undefined && isUuid(contact) ? contact.toLowerCase() : null,
      details
    }).pipe(Effect.catch((e) => Effect.logWarning("audit entry not written").pipe(Effect.annotateLogs({ action: spec.action, error: e._tag }))))
  })

  const afterCall = (p: Principal, endpoint: HttpApiEndpoint.Top, response: HttpServerResponse.HttpServerResponse) => {
    const spec = response.status < 400 ? Option.getOrUndefined(Context.getOption(endpoint.annotations, Audited)) : undefined
    if (spec === undefined && p.staff?.role !== "viewer") return Effect.succeed(response)
    return Effect.gen(function*() {
      if (spec !== undefined) yield* record(p, spec)
      return p.staff?.role === "viewer" ? yield* masked(response) : response
    })
  }

  return { principal, afterCall }
})
