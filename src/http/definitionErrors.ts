import { Effect, type SchemaIssue } from "effect"
import { Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { issueDetails, summarise } from "./issues.ts"

/**
 * The schema failures of a group taking definitions (journeys, segments): a JSON object that is not a valid definition
 * is 422 VALIDATION_ERROR naming each field, as the definition checks' own refusals are; a body that is no JSON object
 * at all (`(body)` alone) and a bad path or query parameter stay 400, as elsewhere.
 */
export const definitionSchemaErrors = (error: { readonly kind: string; readonly cause: { readonly issue: SchemaIssue.Issue } }) => {
  const details = issueDetails(error.cause.issue)
  const fields = Object.keys(details)
  return Effect.fail((error.kind === "Payload" || error.kind === "Body") && !(fields.length === 1 && fields[0] === "(body)")
    ? Unprocessable.of("VALIDATION_ERROR", summarise(details), details)
    : ValidationFailed.of(summarise(details), details))
}
