import { Schema } from "effect"

/**
 * The core API failure shape: `{ success: false, error: { message, code, details } }`.
 * One class per HTTP status so HttpApi can document and encode each; `details` maps a field path
 * (e.g. `guests[0].phone`) to its messages.
 */
/** The `error` of a failure body (also each failed item of a batch). */
export const ErrorDetail = Schema.Struct({
  message: Schema.String,
  code: Schema.String,
  details: Schema.Record(Schema.String, Schema.Unknown),
  // Set by the edge on every error answer (src/http/requestId.ts): the request's X-Request-Id, to quote to support.
  request_id: Schema.optionalKey(Schema.String)
})
const fields = { success: Schema.Literal(false), error: ErrorDetail }
/** The core error body as a schema of its own, for answers documented outside an endpoint's error classes. */
export const CoreErrorBody = Schema.Struct(fields)

export type Details = Record<string, unknown>
const body = (code: string, message: string, details: Details = {}) =>
  ({ success: false as const, error: { message, code, details } })

export class ValidationFailed extends Schema.Error<ValidationFailed>("ValidationFailed")(fields, {
  httpApiStatus: 400,
  description: "The request is malformed: `details` names each offending field"
}) {
  static readonly of = (message: string, details: Details = {}, code = "VALIDATION_ERROR") =>
    new ValidationFailed(body(code, message, details))
}

export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(fields, {
  httpApiStatus: 401,
  description: "Missing, unknown or revoked API key"
}) {
  static readonly of = (message: string) => new Unauthorized(body("UNAUTHORIZED", message))
}

export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(fields, {
  httpApiStatus: 403,
  description: "The key lacks the scope this endpoint requires (a staff session: its role, or its CSRF token)"
}) {
  static readonly of = (message: string, details: Details = {}, code = "FORBIDDEN") => new Forbidden(body(code, message, details))
}

export class NotFound extends Schema.Error<NotFound>("NotFound")(fields, { httpApiStatus: 404 }) {
  static readonly of = (message: string, details: Details = {}, code = "NOT_FOUND") => new NotFound(body(code, message, details))
}

export class Unprocessable extends Schema.Error<Unprocessable>("Unprocessable")(fields, {
  httpApiStatus: 422,
  description: "Well-formed, but refers to something that does not exist in this account (e.g. an unknown hotel)"
}) {
  static readonly of = (code: string, message: string, details: Details = {}) =>
    new Unprocessable(body(code, message, details))
}

export class Conflict extends Schema.Error<Conflict>("Conflict")(fields, {
  httpApiStatus: 409,
  description: "The request conflicts with what the account already holds (e.g. a code registered to another account)"
}) {
  static readonly of = (code: string, message: string, details: Details = {}) => new Conflict(body(code, message, details))
}

export class PreconditionFailed extends Schema.Error<PreconditionFailed>("PreconditionFailed")(fields, {
  httpApiStatus: 412,
  description: "`If-Match` names another version than the current one: read it again, then retry the change"
}) {
  static readonly of = (message: string, details: Details = {}) => new PreconditionFailed(body("PRECONDITION_FAILED", message, details))
}

export class PayloadTooLarge extends Schema.Error<PayloadTooLarge>("PayloadTooLarge")(fields, {
  httpApiStatus: 413,
  description: "The request body is larger than this endpoint takes (`details.max_bytes`); it was not read further"
}) {
  static readonly of = (maxBytes: number) =>
    new PayloadTooLarge(body("PAYLOAD_TOO_LARGE", `The request body is larger than ${maxBytes} bytes, the limit of this endpoint`, {
      max_bytes: maxBytes
    }))
}

export class RateLimited extends Schema.Error<RateLimited>("RateLimited")(fields, {
  httpApiStatus: 429,
  description: "Per-key rate limit exceeded; retry after the Retry-After header's seconds"
}) {
  static readonly of = (retryAfterSeconds: number) =>
    new RateLimited(body("RATE_LIMITED", `Rate limit exceeded; retry after ${retryAfterSeconds} s`, {
      retry_after_seconds: retryAfterSeconds
    }))
}

export class Unavailable extends Schema.Error<Unavailable>("Unavailable")(fields, {
  httpApiStatus: 503,
  description: "Temporarily unable to confirm the write; safe to retry the same request after Retry-After"
}) {
  static readonly of = (message: string, retryAfterSeconds = 2) =>
    new Unavailable(body("SERVICE_UNAVAILABLE", message, { retry_after_seconds: retryAfterSeconds }))
}

export class InternalError extends Schema.Error<InternalError>("InternalError")(fields, { httpApiStatus: 500 }) {
  static readonly of = (message: string) => new InternalError(body("INTERNAL_ERROR", message))
}

export class NotImplemented extends Schema.Error<NotImplemented>("NotImplemented")(fields, {
  httpApiStatus: 501,
  description: "The option asked for is not offered by this platform; nothing was written"
}) {
  static readonly of = (message: string, details: Details = {}) => new NotImplemented(body("NOT_IMPLEMENTED", message, details))
}

export const CommonErrors = [ValidationFailed, Unauthorized, Forbidden, RateLimited, Unavailable] as const

/** Every error an endpoint can answer in the core shape. */
export type ApiError = ValidationFailed | Unauthorized | Forbidden | NotFound | Conflict | PreconditionFailed | PayloadTooLarge | Unprocessable | RateLimited | Unavailable | InternalError

/** The HTTP status an error is answered with (the same as its class's `httpApiStatus`). */
export const statusOf = (e: ApiError): number =>
  e instanceof ValidationFailed ? 400
  : e instanceof Unauthorized ? 401
  : e instanceof Forbidden ? 403
  : e instanceof NotFound ? 404
  : e instanceof Conflict ? 409
  : e instanceof PreconditionFailed ? 412
  : e instanceof PayloadTooLarge ? 413
  : e instanceof Unprocessable ? 422
  : e instanceof RateLimited ? 429
  : e instanceof Unavailable ? 503
  : 500
