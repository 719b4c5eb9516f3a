import { Config, Data, Effect } from "effect"
import { readFile } from "node:fs/promises"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { bundleSdk, SDK_VERSION } from "./bundle.ts"

export const SDK_PATH = "/sdk/svc-events.js"

export class SdkBuildFailure extends Data.TaggedError("SdkBuildFailure")<{ readonly message: string }> {}

/**
 * `GET /sdk/svc-events.js`: the browser script, compiled when the server starts (a broken script fails the start, not a
 * page). ETag with 304, five minutes of cache, CORS open to any page (a public file, no credentials) so that
 * `<script integrity crossorigin="anonymous">` works. `GET /sdk/svc-events.js.sri` publishes the integrity value.
 * With GEP_SDK_DEMO (set by `gep start`, development only) `GET /sdk/demo.html` is a booking page exercising the script.
 */
const demoPage = Effect.tryPromise({
  try: () => readFile(new URL("./demo.html", import.meta.url), "utf8"),
  catch: (e) => new SdkBuildFailure({ message: e instanceof Error ? e.message : String(e) })
})

export const SdkRoutes = HttpRouter.addAll(Effect.gen(function*() {
  const sdk = yield* Effect.tryPromise({
    try: bundleSdk,
    catch: (e) => new SdkBuildFailure({ message: e instanceof Error ? e.message : String(e) })
  })
  const common = { "cache-control": "public, max-age=300", "access-control-allow-origin": "*", etag: sdk.etag }
  const script = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.headers["if-none-match"] === sdk.etag) return HttpServerResponse.empty({ status: 304, headers: common })
    return HttpServerResponse.text(sdk.code, { contentType: "application/javascript; charset=utf-8", headers: common })
  })
  const sri = HttpServerResponse.jsonUnsafe(
    { version: SDK_VERSION, url: SDK_PATH, integrity: sdk.integrity, bytes: sdk.bytes, gzip_bytes: sdk.gzipBytes },
    { headers: common }
  )
  const demo = (yield* Config.Boolean("GEP_SDK_DEMO").pipe(Config.withDefault(false)))
    ? [HttpRouter.route("GET", "/sdk/demo.html", Effect.succeed(HttpServerResponse.text(yield* demoPage, { contentType: "text/html; charset=utf-8" })))]
    : []
  return [HttpRouter.route("GET", SDK_PATH, script), HttpRouter.route("GET", `${SDK_PATH}.sri`, Effect.succeed(sri)), ...demo]
}))

