import { Effect, type Schema } from "effect"
import { HttpServerRequest } from "effect/http"
import { unknownFieldWarnings, type UnknownFieldWarning } from "../../schemas/unknownFields.ts"

/**
 * The `unknown_field` warnings of the request being handled, against its payload schema: the body the endpoint
 * decoded is read again as JSON (the platform keeps the bytes it read), since decoding drops the keys it does not know.
 * Built once per schema, when the handler is.
 */
export const requestWarnings = (schema: Schema.Top) => {
  const warningsOf = unknownFieldWarnings(schema)
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // The body decoded already: a read failing here can only mean there is nothing more to say.
    return yield* request.json.pipe(Effect.map(warningsOf), Effect.orElseSucceed((): Array<UnknownFieldWarning> => []))
  })
}

/** An answer's data with more warnings after its own (the data unchanged when there are none). */
export const withWarnings = <A extends { readonly warnings: ReadonlyArray<unknown> }>(
  data: A,
  warnings: ReadonlyArray<UnknownFieldWarning>
): A => (warnings.length === 0 ? data : { ...data, warnings: [...data.warnings, ...warnings] })
