import { Effect, Layer, Option, Redacted } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiMiddleware } from "effect/http-api"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { RateLimited, Unauthorized } from "../../schemas/errors.ts"
import { CurrentStaffSession, StaffSessionAuthentication, StaffValidationErrors } from "../../schemas/staffApi.ts"
import { ok } from "../http/answers.ts"
import { definitionSchemaErrors } from "../http/definitionErrors.ts"
import { callerScope, orDieOnDatabase } from "../http/handlerContext.ts"
import { pageRequest } from "../http/paging.ts"
import { malformedId } from "../tenancy/edge.ts"
import { Audit } from "./Audit.ts"
import { clearedCookie, isLoopbackHost, sessionCookie } from "./cookie.ts"
import { forgeryRefusal } from "./sessionEdge.ts"
import { publicStaff, StaffAccounts } from "./StaffAccounts.ts"
import { StaffSessions } from "./StaffSessions.ts"
import { StaffSignIn } from "./StaffSignIn.ts"

/** Schema failures of the staff groups: 422 naming each field of a body (src/http/definitionErrors.ts). */
export const StaffValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(StaffValidationErrors, definitionSchemaErrors)

/** Whether this request's cookie must be `Secure`: everywhere but a loopback host (a development machine's plain http). */
const secureFor = (request: HttpServerRequest.HttpServerRequest) => !isLoopbackHost(request.headers.host)

const setCookie = (cookie: (secure: boolean) => string) =>
  HttpEffect.appendPreResponseHandler((request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, { "set-cookie": cookie(secureFor(request)), "cache-control": "no-store" })))

/** A refusal for the rate limit tells when to come back (Retry-After), as every 429 of the API does. */
const withRetryAfter = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapError(effect, (e) => e instanceof RateLimited
    ? HttpEffect.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(e.error.details.retry_after_seconds))))
    : Effect.void)

/** Who acted, for the audit log: the staff member of a session, else the key. */
const actorOf = Effect.gen(function*() {
  const p = yield* CurrentPrincipal
  return p.staff === undefined ? { type: "api_key" as const, id: p.key_id } : { type: "staff" as const, id: p.staff.staff_id }
})

export const StaffLive = HttpApiBuilder.group(Api, "staff", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* StaffAccounts
    const audit = yield* Audit
    const note = (action: string, staffId: string, details: Record<string, unknown>) => Effect.gen(function*() {
      const scope = yield* callerScope
      yield* orDieOnDatabase(audit.record({ scope: { tenant_id: scope.tenant_id, sandbox: false }, actor: yield* actorOf, action, contact_id: null, details: { staff_id: staffId, ...details } }))
    })
    return handlers
      .handle("add", Effect.fn("Staff.http.add")(function*({ payload }) {
        const { tenant_id } = yield* callerScope
        const added = yield* orDieOnDatabase(accounts.add(tenant_id, payload.email, payload.role))
        yield* note("staff.added", added.staff_id, { role: added.role })
        return ok(publicStaff(added))
      }))
      .handle("list", Effect.fn("Staff.http.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        return ok(yield* orDieOnDatabase(accounts.list((yield* callerScope).tenant_id, page)))
      }))
      .handle("change", Effect.fn("Staff.http.change")(function*({ params, payload }) {
        if (!isUuid(params.staff_id)) return yield* malformedId("staff_id")
        const changed = yield* orDieOnDatabase(accounts.change((yield* callerScope).tenant_id, params.staff_id.toLowerCase(), payload.role))
        yield* note("staff.role_changed", changed.staff_id, { role: changed.role })
        return ok(publicStaff(changed))
      }))
      .handle("remove", Effect.fn("Staff.http.remove")(function*({ params }) {
        if (!isUuid(params.staff_id)) return yield* malformedId("staff_id")
        const removed = yield* orDieOnDatabase(accounts.remove((yield* callerScope).tenant_id, params.staff_id.toLowerCase()))
        yield* note("staff.removed", removed.staff_id, {})
      }))
  }))

export const StaffSignInLive = HttpApiBuilder.group(Api, "staffSignIn", (handlers) =>
  Effect.gen(function*() {
    const signIn = yield* StaffSignIn
    const ipOf = Effect.gen(function*() {
      return Option.getOrElse((yield* HttpServerRequest.HttpServerRequest).remoteAddress, () => "unknown")
    })
    return handlers
      .handle("signIn", Effect.fn("StaffSignIn.http.signIn")(function*({ payload }) {
        yield* withRetryAfter(signIn.request(payload.email, yield* ipOf))
        return ok({ status: "sent" as const })
      }))
      .handle("verify", Effect.fn("StaffSignIn.http.verify")(function*({ payload }) {
        const signedIn = yield* withRetryAfter(signIn.verify(payload.email, payload.code, yield* ipOf))
        yield* setCookie((secure) => sessionCookie(signedIn.token, secure))
        return ok(signedIn.session)
      }))
  }))

export const StaffSessionLive = HttpApiBuilder.group(Api, "staffSession", (handlers) =>
  Effect.gen(function*() {
    const sessions = yield* StaffSessions
    return handlers
      .handle("me", Effect.fn("StaffSession.http.me")(function*() {
        return ok((yield* CurrentStaffSession).session)
      }))
      .handle("signOut", Effect.fn("StaffSession.http.signOut")(function*() {
        yield* sessions.end((yield* CurrentStaffSession).token_hash)
        yield* setCookie(clearedCookie)
      }))
  }))

export const AuditLive = HttpApiBuilder.group(Api, "audit", (handlers) =>
  Effect.gen(function*() {
    const audit = yield* Audit
    return handlers.handle("list", Effect.fn("Audit.http.list")(function*({ query }) {
      const page = yield* pageRequest(query)
      for (const id of ["contact_id", "staff_id"] as const) if (query[id] !== undefined && !isUuid(query[id])) return yield* malformedId(id)
      return ok(yield* orDieOnDatabase(audit.list(yield* callerScope, {
        contact_id: query.contact_id?.toLowerCase(), staff_id: query.staff_id?.toLowerCase(), action: query.action
      }, page)))
    }))
  }))

/** The session routes' own check: the cookie's live session, same-site, and its CSRF token on sign-out. */
export const StaffSessionAuthenticationLive = Layer.effect(StaffSessionAuthentication, Effect.gen(function*() {
  const sessions = yield* StaffSessions
  return StaffSessionAuthentication.of({
    session: (httpEffect, { credential }) => Effect.gen(function*() {
      const token = Redacted.value(credential)
      if (!token) return yield* Unauthorized.of("No staff session: sign in with POST /api/v1/staff/sign-in")
      const live = yield* sessions.authenticate(token)
      if (live === undefined) return yield* Unauthorized.of("The staff session has ended or expired: sign in again")
      const request = yield* HttpServerRequest.HttpServerRequest
      const forged = forgeryRefusal(token, request)
      if (forged !== undefined) return yield* forged
      return yield* Effect.provideService(httpEffect, CurrentStaffSession, live)
    })
  })
}))
