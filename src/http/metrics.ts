import { Effect, Layer, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Metrics, registry } from "../../core/observability/metrics.ts"
import { toCoreErrorShape } from "./errorShape.ts"

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** The route as a template, so ids in paths do not explode the metric's cardinality. */
export const routeLabel = (path: string): string => {
  const p = path.split("?")[0]!.replace(UUID, ":id")
  return p
    .replace(/^\/api\/v1\/reservations\/(?!batch$)[^/]+$/, "/api/v1/reservations/:reservation_id")
    .replace(/^\/api\/webhooks\/cti\/[^/]+$/, "/api/webhooks/cti/:provider")
    .replace(/^\/api\/v1\/webhooks\/[^/]+/, "/api/v1/webhooks/:id")
    .replace(/^\/api\/contacts\/[^/]+/, "/api/contacts/:id")
    .replace(/^\/api\/calls\/[^/]+$/, "/api/calls/:call_record_id")
    // A webhook token is a credential: never a label on /metrics.
    .replace(/^\/api\/v1\/website-events\/hooks\/[^/]+$/, "/api/v1/website-events/hooks/:token")
    .replace(/^(\/(?:docs|openapi\.json|healthz|readyz|metrics))\/.*$/, "$1")
}

/**
 * Every answer in the core error shape (unknown routes, unsupported media, defects included), then counted and
 * timed by route template, method and status.
 */
export const HttpMetrics = HttpRouter.middleware((httpEffect): Effect.Effect<HttpServerResponse.HttpServerResponse, Types.unhandled, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = performance.now()
    const response = yield* toCoreErrorShape(httpEffect)
    const labels = { route: routeLabel(request.url), method: request.method, status: String(response.status) }
    Metrics.httpRequests.inc(labels)
    Metrics.httpDuration.observe(labels, (performance.now() - started) / 1000)
    return response
  }), { global: true })

export const MetricsRoute = HttpRouter.add("GET", "/metrics", Effect.promise(async () =>
  HttpServerResponse.text(await registry.metrics(), { contentType: registry.contentType })))

export const Observability = Layer.mergeAll(HttpMetrics, MetricsRoute)
