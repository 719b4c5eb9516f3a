import { Config, Data, Effect } from "effect"
import { readFile } from "node:fs/promises"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { bundleSdk, SDK_VERSION } from "./bundle.ts"
import { coreErrorResponse } from "../http/errorShape.ts"

export const SDK_PATH = "/sdk/svc-events.js"

export class SdkBuildFailure extends Data.TaggedError("SdkBuildFailure")<{ readonly message: string }> {}

/**
 * `GET /sdk/svc-events.js`: the browser script, compiled once per process on first use (a broken script answers 500;
 * the SDK tests compile and load it in a browser). ETag with 304, five minutes of cache, CORS open to any page (a public file, no credentials) so that
 * `<script integrity crossorigin="anonymous">` works. `GET /sdk/svc-events.js.sri` publishes the integrity value.
 * With GEP_SDK_DEMO (set by `gep start`, development only) `GET /sdk/demo.html` is a booking page exercising the script;
 * without it the route answers 404 (it stays mounted so the document's route list holds in every mode).
 */
const demoPage = Effect.tryPromise({
  try: () => readFile(new URL("./demo.html", import.meta.url), "utf8"),
  catch: (e) => new SdkBuildFailure({ message: e instanceof Error ? e.message : String(e) })
})

/** A script that does not compile (or a demo page not readable) is the platform's fault: 500, in the core shape. */
const orBuildFailure = <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, SdkBuildFailure, R>) =>
  effect.pipe(Effect.catchTag("SdkBuildFailure", (e) =>
    Effect.logError("browser SDK build failed").pipe(
      Effect.annotateLogs({ error: e.message }),
      Effect.as(coreErrorResponse(500, "SDK_BUILD_FAILED", "The browser script could not be built"))
    )))

export const SdkRoutes = HttpRouter.addAll(Effect.gen(function*() {
  // Compiled once, on the first request that needs it, not while the server starts: a request arriving while a route
  // layer was still being built was accepted and never answered.
  const compiled = yield* Effect.cached(Effect.tryPromise({
    try: bundleSdk,
    catch: (e) => new SdkBuildFailure({ message: e instanceof Error ? e.message : String(e) })
  }))
  const headersOf = (etag: string) => ({ "cache-control": "public, max-age=300", "access-control-allow-origin": "*", etag })
  const script = Effect.gen(function*() {
    const sdk = yield* compiled
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.headers["if-none-match"] === sdk.etag) return HttpServerResponse.empty({ status: 304, headers: headersOf(sdk.etag) })
    return HttpServerResponse.text(sdk.code, { contentType: "application/javascript; charset=utf-8", headers: headersOf(sdk.etag) })
  })
  const sri = Effect.map(compiled, (sdk) => HttpServerResponse.jsonUnsafe(
    { version: SDK_VERSION, url: SDK_PATH, integrity: sdk.integrity, bytes: sdk.bytes, gzip_bytes: sdk.gzipBytes },
    { headers: headersOf(sdk.etag) }
  ))
  const page = yield* Effect.cached(demoPage)
  const demoOn = yield* Config.Boolean("GEP_SDK_DEMO").pipe(Config.withDefault(false))
  const demo = demoOn
    ? Effect.map(page, (html) => HttpServerResponse.text(html, { contentType: "text/html; charset=utf-8" }))
    : Effect.succeed(coreErrorResponse(404, "NOT_FOUND", "The SDK demo page is served only in development (gep start sets GEP_SDK_DEMO)"))
  return [
    HttpRouter.route("GET", SDK_PATH, orBuildFailure(script)),
    HttpRouter.route("GET", `${SDK_PATH}.sri`, orBuildFailure(sri)),
    HttpRouter.route("GET", "/sdk/demo.html", orBuildFailure(demo))
  ]
}))
