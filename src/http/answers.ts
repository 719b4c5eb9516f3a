import { Effect, Result, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { IngressPublisherShape } from "../../streams/IngressPublisher.ts"
import type { ActorType } from "../../streams/subjects.ts"
import { issueDetails, summarise } from "./issues.ts"

export const RETRY_AFTER_S = 2

/** An HTTP answer before it is rendered: status and body (success or the core error shape). */
export interface Answer {
  readonly status: number
  readonly body: unknown
}

export const failure = (status: number, code: string, message: string, details: Record<string, unknown> = {}): Answer =>
  ({ status, body: { success: false, error: { message, code, details } } })

export const respond = (a: Answer) =>
  HttpServerResponse.jsonUnsafe(a.body, {
    status: a.status,
    headers: a.status === 503 ? { "retry-after": String(RETRY_AFTER_S) } : {}
  })

/** A well-formed hotel reference that names no hotel of this account. */
export const hotelNotFound = (h: { readonly field: string; readonly value: string }): Answer =>
  failure(422, "HOTEL_NOT_FOUND", `No hotel with ${h.field} ${JSON.stringify(h.value)} in this account`, { [h.field]: ["no such hotel in this account"] })

/** Sends a command to an actor and returns its committed reply, or a 503 when it could not be confirmed in time. */
export const askActor = (
  publisher: IngressPublisherShape,
  principal: TenantScope,
  actor: ActorType,
  type: string,
  key: string,
  payload: unknown
): Effect.Effect<Answer> =>
  publisher.request({ actor, type, tenant_id: principal.tenant_id, sandbox: principal.sandbox, key, payload }).pipe(
    Effect.map((reply): Answer => ({ status: reply.status, body: reply.body })),
    Effect.catchTag("NotConfirmed", (e) =>
      Effect.succeed(failure(503, "SERVICE_UNAVAILABLE",
        e.stage === "publish"
          ? "The request could not be queued; nothing was stored. Retry after Retry-After seconds"
          : "The write was queued but not confirmed in time; retrying the same request is safe",
        { retry_after_seconds: RETRY_AFTER_S })))
  )

/**
 * One batch item: decoded with the endpoint's schema (every issue reported, like the single endpoint) and handled,
 * or answered 400 on its own, so one bad item never fails the batch.
 */
export const batchItem = <S extends Schema.Top & { readonly DecodingServices: never }, R>(
  schema: S,
  handle: (value: S["Type"]) => Effect.Effect<Answer, never, R>
) => {
  const decode = Schema.decodeUnknownResult(schema as never, { errors: "all" }) as (u: unknown) => Result.Result<S["Type"], Schema.SchemaError>
  return (item: unknown): Effect.Effect<Answer, never, R> => {
    const decoded = decode(item)
    if (Result.isSuccess(decoded)) return handle(decoded.success)
    const details = issueDetails(decoded.failure.issue)
    return Effect.succeed(failure(400, "VALIDATION_ERROR", summarise(details), details))
  }
}

/** Item results of a batch endpoint, in order: `{ index, success, status, data | error }`. */
export const batchResults = (answers: ReadonlyArray<Answer>) =>
  answers.map((a, index) => {
    const body = a.body as { data?: unknown; error?: unknown }
    return a.status < 300
      ? { index, success: true, status: a.status, data: body.data }
      : { index, success: false, status: a.status, error: body.error }
  })
