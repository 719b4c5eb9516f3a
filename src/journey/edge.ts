import { HttpApiMiddleware } from "effect/http-api"
import { type Issue, issueDetails as definitionDetails } from "../../core/journey/validate.ts"
import { Unprocessable } from "../../schemas/errors.ts"
import { JourneyValidationErrors } from "../../schemas/journeyApi.ts"
import { definitionSchemaErrors } from "../http/definitionErrors.ts"

/** Schema failures of the journeys group: 422 naming each field of a definition (src/http/definitionErrors.ts). */
export const JourneyValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(JourneyValidationErrors, definitionSchemaErrors)

/** The definition check's refusal: the same shape, a message naming the first problem. */
export const invalidDefinition = (errors: ReadonlyArray<Issue>) => {
  const first = errors[0]!
  const message = errors.length === 1
    ? `Invalid journey definition: ${first.path}: ${first.message}`
    : `Invalid journey definition: ${errors.length} problems, the first ${first.path}: ${first.message}`
  return Unprocessable.of("VALIDATION_ERROR", message, definitionDetails(errors))
}
