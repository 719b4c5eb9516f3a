import { Effect, Layer, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { Metrics, registry } from "../../core/observability/metrics.ts"
import { toCoreErrorShape } from "./errorShape.ts"

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/**
 * Every documented path as a matcher and its label (`/api/v1/unsubscribe/{token}` → `/api/v1/unsubscribe/:token`):
 * literal paths first, so `/api/v1/reservations/batch` is not taken for a reservation id.
 */
const DOCUMENTED = Object.keys(OpenApi.fromApi(Api).paths)
  .map((template) => ({
    label: template.replace(/\{(\w+)\}/g, ":$1"),
    pattern: new RegExp(`^${template.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("[^/]+")}$`),
    params: (template.match(/\{/g) ?? []).length
  }))
  .sort((a, b) => a.params - b.params)

/**
 * The route as a template, never a value from the path: ids would explode the metric's cardinality, and some path
 * values are credentials (an unsubscribe link's token, a source's webhook token). Documented routes by their
 * document's template; the rest (OIDC, the SDK, probes) by rules.
 */
export const routeLabel = (path: string): string => {
  const bare = path.split("?")[0]!
  const documented = DOCUMENTED.find((d) => d.pattern.test(bare))
  if (documented !== undefined) return documented.label
  // The console's screens are one page whatever the path (the client routes): one label, not one per screen and id.
  if (bare.startsWith("/console/")) return "/console/:path"
  // Not in the document (OIDC, the SDK, probes, unknown paths): ids out, probes' subpaths folded.
  return bare.replace(UUID, ":id").replace(/^(\/(?:docs|openapi\.json|healthz|readyz|metrics))\/.*$/, "$1")
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
