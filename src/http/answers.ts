import { Effect, Result, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import {
  type ApiError, Forbidden, InternalError, NotFound, PayloadTooLarge, statusOf, Unavailable, Unprocessable, ValidationFailed
} from "../../schemas/errors.ts"
import { CORE_BODY_LIMIT } from "../../schemas/limits.ts"
import type { ActorCallFailure } from "../../streams/ActorClient.ts"
import { unknownFieldWarnings, type UnknownFieldWarning } from "../../schemas/unknownFields.ts"
import { issueDetails, summarise } from "./issues.ts"
import { withWarnings } from "./unknownFields.ts"

/** The core success envelope `{ success: true, data }`. */
export const ok = <A>(data: A) => ({ success: true as const, data })

/**
 * A 200 whose JSON text is written already (built by PostgreSQL for a hot read): sent as it is, as the schema's
 * encoding would send it, without decoding and encoding it again. Its shape is pinned by a test, not by the encoder.
 */
export const jsonAnswer = (text: string) => HttpServerResponse.text(text, { status: 200, contentType: "application/json" })

/** Seconds a client is told to wait (Retry-After) before retrying a 503. */
export const RETRY_AFTER_S = 2

type ActorFailureAnswer = Unavailable | InternalError | Unprocessable | PayloadTooLarge

/**
 * What an actor could not do, as the edge answers it: not confirmed → 503 (safe to retry); refused for its data (a
 * value the database cannot hold: dead-lettered at once) → 422, never retryable; an envelope larger than a stream
 * message → 413; dead-lettered after repeated failures → 500.
 */
const actorFailure = (e: ActorCallFailure): ActorFailureAnswer => {
  switch (e._tag) {
    case "NotConfirmed":
      return Unavailable.of(
        e.stage === "publish"
          ? "The request could not be queued; nothing was stored. Retry after Retry-After seconds"
          : "The write was queued but not confirmed in time; retrying the same request is safe",
        RETRY_AFTER_S
      )
    case "ActorRejected":
      return Unprocessable.of("INVALID_DATA", "The request holds a value that cannot be stored; it was recorded for an operator. " +
        "Retrying the same request will not help", { "(body)": [e.message] })
    case "EnvelopeTooLarge":
      return PayloadTooLarge.of(e.maxBytes)
    case "ActorDefect":
      return InternalError.of("Internal error; the request was recorded for an operator")
    case "Overloaded":
      return overloaded(e.reason)
  }
}

/** What a request shed for overload is told (streams/Admission.ts, src/http/sheddingServer.ts). */
export const overloadedMessage = (reason: "process" | "tenant") =>
  reason === "tenant"
    ? "This account has as many requests in progress as its share of the platform allows; nothing was stored. Retry after Retry-After seconds"
    : "The platform is at capacity; nothing was stored. Retry after Retry-After seconds"

/** Shed for overload: nothing was queued or stored, so the same request may simply be sent again. */
export const overloaded = (reason: "process" | "tenant") => Unavailable.of(overloadedMessage(reason), RETRY_AFTER_S)

/** An actor call with its transport failures rendered as the core error shape. */
export const answered = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, ActorCallFailure> | ActorFailureAnswer, R> =>
  Effect.mapError(effect, (e) => (isActorCallFailure(e) ? actorFailure(e) : e)) as Effect.Effect<
    A,
    Exclude<E, ActorCallFailure> | ActorFailureAnswer,
    R
  >

const ACTOR_CALL_FAILURES = new Set(["NotConfirmed", "ActorDefect", "ActorRejected", "EnvelopeTooLarge", "Overloaded"])
const isActorCallFailure = (e: unknown): e is ActorCallFailure =>
  typeof e === "object" && e !== null && "_tag" in e && ACTOR_CALL_FAILURES.has(e._tag as string)

/** A well-formed hotel reference that names no hotel of this account. */
export const hotelNotFound = (h: { readonly field: string; readonly value: string }) =>
  Unprocessable.of("HOTEL_NOT_FOUND", `No hotel with ${h.field} ${JSON.stringify(h.value)} in this account`, {
    [h.field]: ["no such hotel in this account"]
  })

/** What a write endpoint did: its data, and whether it created the thing (201) or found it (200). */
export interface Outcome<A> {
  readonly created: boolean
  readonly data: A
}

/** One item of a batch: answered on its own, so one bad item never fails the batch. */
export type ItemAnswer<A> =
  | { readonly success: true; readonly status: number; readonly data: A }
  | { readonly success: false; readonly status: number; readonly error: ApiError["error"] }

const itemAnswer = <A, R>(effect: Effect.Effect<Outcome<A>, ApiError, R>): Effect.Effect<ItemAnswer<A>, never, R> =>
  Effect.match(effect, {
    onSuccess: (o): ItemAnswer<A> => ({ success: true, status: o.created ? 201 : 200, data: o.data }),
    onFailure: (e): ItemAnswer<A> => ({ success: false, status: statusOf(e), error: e.error })
  })

/** An item's answer data with its request's unknown_field warnings, when the data has warnings to carry them. */
const withItemWarnings = <A>(data: A, warnings: ReadonlyArray<UnknownFieldWarning>): A =>
  typeof data === "object" && data !== null && "warnings" in data && Array.isArray(data.warnings)
    ? withWarnings(data as A & { readonly warnings: ReadonlyArray<unknown> }, warnings)
    : data

/**
 * Batch items of one schema: each decoded (every issue reported, like the single endpoint) and handled, or answered
 * 400 on its own, so one bad item never fails the batch; an item larger than the single endpoint takes is answered 413
 * on its own (measured once decoded: unknown keys are gone and the depth is bounded). An item's unknown keys are its
 * own `unknown_field` warnings. The decoder is built once, when the handler is.
 */
export const batchItems = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema as never, { errors: "all" }) as (u: unknown) => Result.Result<S["Type"], Schema.SchemaError>
  const warningsOf = unknownFieldWarnings(schema)
  return <A, R>(handle: (value: S["Type"]) => Effect.Effect<Outcome<A>, ApiError, R>) => (item: unknown): Effect.Effect<ItemAnswer<A>, never, R> => {
    const decoded = decode(item)
    if (Result.isSuccess(decoded)) {
      if (Buffer.byteLength(JSON.stringify(decoded.success)) > CORE_BODY_LIMIT) return itemAnswer(Effect.fail(PayloadTooLarge.of(CORE_BODY_LIMIT)))
      const warnings = warningsOf(item)
      return itemAnswer(Effect.map(handle(decoded.success), (o) => ({ ...o, data: withItemWarnings(o.data, warnings) })))
    }
    const details = issueDetails(decoded.failure.issue)
    return itemAnswer(Effect.fail(ValidationFailed.of(summarise(details), details)))
  }
}

/** Item results of a batch endpoint, in order: `{ index, success, status, data | error }`. */
export const batchResults = <A>(answers: ReadonlyArray<ItemAnswer<A>>) => answers.map((a, index) => ({ index, ...a }))

/** A batch's size outside its bounds: refused whole, naming the field. */
export const batchSizeRefused = (field: string, max: number, got: number) =>
  ValidationFailed.of(`${field} must hold 1 to ${max} items`, { [field]: [`must hold 1 to ${max} items (got ${got})`] })

/** A refusal decided by a parser or normaliser (status, code, message, details), as the matching error class. */
export const refusal = (status: number, code: string, message: string, details: Record<string, unknown> = {}): ApiError =>
  status === 403 ? Forbidden.of(message, details)
  : status === 404 ? NotFound.of(message, details)
  : status === 422 ? Unprocessable.of(code, message, details)
  : ValidationFailed.of(message, details, code)

/**
 * A stored row as the JSON it is answered with (timestamps as ISO strings): read endpoints whose body is declared
 * as free-form JSON (`Record<string, unknown>`) encode exactly what the client receives.
 */
export const asJson = <A>(value: A): A => JSON.parse(JSON.stringify(value)) as A
