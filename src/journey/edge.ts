import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { type Issue, issueDetails as definitionDetails } from "../../core/journey/validate.ts"
import { Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { JourneyValidationErrors } from "../../schemas/journeyApi.ts"
import { issueDetails, summarise } from "../http/issues.ts"

/**
 * A JSON object that is not a valid definition: 422 VALIDATION_ERROR naming each field. A body that is no JSON object
 * at all (`(body)` alone) and a bad path or query parameter: 400, as elsewhere.
 */
export const JourneyValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(JourneyValidationErrors, (error) => {
  const details = issueDetails(error.cause.issue)
  const fields = Object.keys(details)
  return Effect.fail((error.kind === "Payload" || error.kind === "Body") && !(fields.length === 1 && fields[0] === "(body)")
    ? Unprocessable.of("VALIDATION_ERROR", summarise(details), details)
    : ValidationFailed.of(summarise(details), details))
})

/** The definition check's refusal: the same shape, a message naming the first problem. */
export const invalidDefinition = (errors: ReadonlyArray<Issue>) => {
  const first = errors[0]!
  const message = errors.length === 1
    ? `Invalid journey definition: ${first.path}: ${first.message}`
    : `Invalid journey definition: ${errors.length} problems, the first ${first.path}: ${first.message}`
  return Unprocessable.of("VALIDATION_ERROR", message, definitionDetails(errors))
}

/** A version as an entity tag: `"v3"`. */
export const etagOf = (version: number) => `"v${version}"`

/** Whether an If-Match header names this version (`*` names any; a weak tag compares as its strong form). */
export const matches = (ifMatch: string, version: number) =>
  ifMatch.split(",").map((t) => t.trim().replace(/^W\//, "")).some((t) => t === "*" || t === etagOf(version))

/** The ETag header on this request's answer. */
export const withEtag = (version: number) =>
  HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, "etag", etagOf(version))))

/** Canonical JSON (keys sorted): a definition read back from jsonb compares equal to the same one sent. */
export const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : typeof value === "object" && value !== null
    ? `{${Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`
    : JSON.stringify(value)
