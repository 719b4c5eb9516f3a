import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiMiddleware } from "effect/http-api"
import { Api, CurrentPrincipal } from "../../schemas/api.ts"
import { PrivacyValidationErrors } from "../../schemas/privacyApi.ts"
import { ok } from "../http/answers.ts"
import { definitionSchemaErrors } from "../http/definitionErrors.ts"
import { callerScope as scope, orDieOnDatabase } from "../http/handlerContext.ts"
import { pageRequest } from "../http/paging.ts"
import { PrivacyRequests } from "./PrivacyRequests.ts"

/** Schema failures of the privacy group: 422 naming each field (src/http/definitionErrors.ts). */
export const PrivacyValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(PrivacyValidationErrors, definitionSchemaErrors)

export const PrivacyLive = HttpApiBuilder.group(Api, "privacy", (handlers) =>
  Effect.gen(function*() {
    const requests = yield* PrivacyRequests
    return handlers
      .handle("create", Effect.fn("Privacy.http.create")(function*({ payload }) {
        const principal = yield* CurrentPrincipal
        return ok(yield* orDieOnDatabase(requests.create(yield* scope, principal.key_id, payload)))
      }))
      .handle("list", Effect.fn("Privacy.http.list")(function*({ query }) {
        const page = yield* pageRequest(query)
        return ok(yield* orDieOnDatabase(requests.list(yield* scope, query.status, page)))
      }))
      .handle("get", Effect.fn("Privacy.http.get")(function*({ params }) {
        return ok(yield* orDieOnDatabase(requests.get(yield* scope, params.request_id)))
      }))
  }))

export const PrivacyExportLive = HttpApiBuilder.group(Api, "privacyExport", (handlers) =>
  Effect.gen(function*() {
    const requests = yield* PrivacyRequests
    return handlers.handle("download", Effect.fn("Privacy.http.download")(function*({ params, query }) {
      const document = yield* orDieOnDatabase(requests.download(params.request_id, query.expires, query.signature))
      // A personal document: saved as a file, never cached or shown inline by a browser or a proxy.
      yield* HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, {
        "cache-control": "no-store",
        "content-disposition": `attachment; filename="privacy-export-${document.request_id}.json"`,
        "referrer-policy": "no-referrer"
      })))
      return document
    }))
  }))
