import { Data, Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ASSETS_PREFIX, bundleConsole, etagOf } from "./bundle.ts"
import { coreErrorResponse } from "../http/errorShape.ts"

export const CONSOLE_PATH = "/console"

export class ConsoleBuildFailure extends Data.TaggedError("ConsoleBuildFailure")<{ readonly message: string }> {}

/**
 * The page's headers. The console is a client of the public API on this origin and nothing else: scripts, styles,
 * images, fonts and API calls from here only, no inline script or style attribute, no framing (clickjacking an
 * operator's resend), no referrer leaving with a contact's id in the path, no opener reaching into the tab.
 */
export const PAGE_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  // The page is small and names the current assets: revalidated on every load, so a new release is picked up at once.
  "cache-control": "no-cache"
} as const

/** An asset's name holds its content's hash: a new build is a new name, so a copy never needs revalidating. */
const ASSET_HEADERS = { "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" } as const

/**
 * `GET /console` and every `GET /console/...` path: the single page (the client routes by path, so a reload or a
 * shared link to `/console/contacts/<id>` lands on the same page). `GET /console/assets/<name>`: its script and
 * stylesheet. Compiled on the first request that needs them, like the browser SDK (src/sdk/routes.ts), so a platform
 * that nobody opens the console on pays nothing; a build failure answers 500 in the core shape.
 */
export const ConsoleRoutes = HttpRouter.addAll(Effect.gen(function*() {
  const compiled = yield* Effect.cached(Effect.tryPromise({
    try: bundleConsole,
    catch: (e) => new ConsoleBuildFailure({ message: e instanceof Error ? e.message : String(e) })
  }).pipe(Effect.tap((b) => Effect.logInfo("console compiled").pipe(Effect.annotateLogs({ build_ms: b.buildMs })))))

  const orBuildFailure = (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, ConsoleBuildFailure, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext>) =>
    effect.pipe(Effect.catchTag("ConsoleBuildFailure", (e) =>
      Effect.logError("console build failed").pipe(
        Effect.annotateLogs({ error: e.message }),
        Effect.as(coreErrorResponse(500, "CONSOLE_BUILD_FAILED", "The console could not be built"))
      )))

  const page = Effect.gen(function*() {
    const bundle = yield* compiled
    const request = yield* HttpServerRequest.HttpServerRequest
    const etag = etagOf(bundle.html)
    const headers = { ...PAGE_HEADERS, etag }
    if (request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
    return HttpServerResponse.text(bundle.html, { contentType: "text/html; charset=utf-8", headers })
  })

  const asset = Effect.gen(function*() {
    const bundle = yield* compiled
    const name = (yield* HttpRouter.params).file ?? ""
    const found = bundle.assets.get(name)
    if (found === undefined) return coreErrorResponse(404, "NOT_FOUND", "No such console asset (asset names change with every release: reload the console)")
    const request = yield* HttpServerRequest.HttpServerRequest
    return /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
      ? HttpServerResponse.uint8Array(found.gzip, { contentType: found.contentType, headers: { ...ASSET_HEADERS, "content-encoding": "gzip", vary: "accept-encoding" } })
      : HttpServerResponse.uint8Array(found.body, { contentType: found.contentType, headers: { ...ASSET_HEADERS, vary: "accept-encoding" } })
  })

  return [
    HttpRouter.route("GET", `${ASSETS_PREFIX}:file`, orBuildFailure(asset)),
    // The router registers a `/*` route for its bare prefix too: this one answers /console as well.
    HttpRouter.route("GET", `${CONSOLE_PATH}/*`, orBuildFailure(page))
  ]
}))
