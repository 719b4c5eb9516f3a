import { ByteSize, Context, Effect, Layer } from "effect"
import { HttpIncomingMessage, HttpServerRequest } from "effect/http"
import { PayloadTooLarge } from "../../schemas/errors.ts"
import { BodyLimit, BodyLimits } from "../../schemas/limits.ts"

/** A body read cut off at the limit: the platform's RequestParseError, reason BodyTooLarge (a defect of the decode). */
const isBodyTooLarge = (defect: unknown): boolean => {
  const e = defect as { _tag?: string; reason?: { _tag?: string; reason?: string } }
  return e?._tag === "HttpServerError" && e.reason?._tag === "RequestParseError" && e.reason.reason === "BodyTooLarge"
}

/**
 * The endpoint's body limit (its `BodyLimit`, else its group's, else the core default), enforced while reading: a
 * Content-Length above it is refused before a byte is read, and a body that turns out larger (chunked, or lying about
 * its length) stops being read at the limit (Effect's `MaxBodySize`; the platform then closes the connection rather
 * than drain the rest). Either way a 413 in the core error shape.
 */
export const BodyLimitsLive = Layer.succeed(BodyLimits, (httpEffect, { endpoint, group }) =>
  Effect.gen(function*() {
    const limit = Context.get(Context.merge(group.annotations, endpoint.annotations), BodyLimit)
    const request = yield* HttpServerRequest.HttpServerRequest
    const announced = Number(request.headers["content-length"] ?? 0)
    if (announced > limit) return yield* PayloadTooLarge.of(limit)
    return yield* httpEffect.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limit)),
      Effect.catchDefect((defect) => (isBodyTooLarge(defect) ? Effect.fail(PayloadTooLarge.of(limit)) : Effect.die(defect)))
    )
  }))
