import { Effect, Layer, type Types } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { Metrics, registry } from "../../core/observability/metrics.ts"
import { toCoreErrorShape } from "./errorShape.ts"

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/**
 * Every documented path as a matcher and its label (`/api/v1/unsubscribe/{token}` → `/api/v1/unsubscribe/:token`).
 * Literal paths are looked up exactly and first, so `/api/v1/reservations/batch` is not taken for a reservation id; a
 * template matches only paths of its own number of segments (`[^/]+` spans one), so the templates are tried by that
 * number (a handful each, not all ~120 twice per request: metrics and the access log).
 */
const TEMPLATES = Object.keys(OpenApi.fromApi(Api).paths).map((template) => ({
  template,
  label: template.replace(/\{(\w+)\}/g, ":$1"),
  params: (template.match(/\{/g) ?? []).length
}))
const LITERAL = new Map(TEMPLATES.filter((t) => t.params === 0).map((t) => [t.template, t.label]))
const segments = (path: string) => path.split("/").length
const BY_SEGMENTS = new Map<number, Array<{ readonly label: string; readonly pattern: RegExp }>>()
for (const t of TEMPLATES.filter((t) => t.params > 0).sort((a, b) => a.params - b.params)) {
  const pattern = new RegExp(`^${t.template.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("[^/]+")}$`)
  const n = segments(t.template)
  const bucket = BY_SEGMENTS.get(n) ?? []
  bucket.push({ label: t.label, pattern })
  BY_SEGMENTS.set(n, bucket)
}

/**
 * The route as a template, never a value from the path: ids would explode the metric's cardinality, and some path
 * values are credentials (an unsubscribe link's token, a source's webhook token). Documented routes by their
 * document's template; the rest (OIDC, the SDK, probes) by rules.
 */
export const routeLabel = (path: string): string => {
  const bare = path.split("?")[0]!
  const documented = LITERAL.get(bare) ?? BY_SEGMENTS.get(segments(bare))?.find((d) => d.pattern.test(bare))?.label
  if (documented !== undefined) return documented
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
