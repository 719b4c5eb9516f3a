import { Effect } from "effect"
import { HttpApiBuilder, HttpApiMiddleware } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { SegmentValidationErrors } from "../../schemas/segmentApi.ts"
import { ok } from "../http/answers.ts"
import { definitionSchemaErrors } from "../http/definitionErrors.ts"
import { withEtag } from "../http/etag.ts"
import { callerScope as scope, orDieOnDatabase } from "../http/handlerContext.ts"
import { pageRequest } from "../http/paging.ts"
import { Segments } from "./Segments.ts"

/** Schema failures of the segments group: 422 naming each path of a definition (src/http/definitionErrors.ts). */
export const SegmentValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(SegmentValidationErrors, definitionSchemaErrors)

export const SegmentsLive = HttpApiBuilder.group(Api, "segments", (handlers) =>
  Effect.gen(function*() {
    const segments = yield* Segments
    return handlers
      .handle("create", Effect.fn("Segments.http.create")(function*({ payload }) {
        const saved = yield* orDieOnDatabase(segments.create(yield* scope, payload))
        yield* withEtag(saved.version)
        return ok(saved)
      }))
      .handle("list", Effect.fn("Segments.http.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        return ok(yield* orDieOnDatabase(segments.list(yield* scope, page)))
      }))
      .handle("get", Effect.fn("Segments.http.get")(function*({ params }) {
        const found = yield* orDieOnDatabase(segments.get(yield* scope, params.id))
        yield* withEtag(found.version)
        return ok(found)
      }))
      .handle("update", Effect.fn("Segments.http.update")(function*({ params, headers, payload }) {
        const saved = yield* orDieOnDatabase(segments.update(yield* scope, params.id, payload, headers["if-match"]))
        yield* withEtag(saved.version)
        return ok(saved)
      }))
      .handle("preview", Effect.fn("Segments.http.preview")(function*({ payload }) {
        return ok(yield* orDieOnDatabase(segments.preview(yield* scope, payload)))
      }))
  }))
