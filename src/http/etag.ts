import { Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"

// Versioned resources (journeys, segments): the version as an entity tag, and If-Match checked against it.

/** A version as an entity tag: `"v3"`. */
export const etagOf = (version: number) => `"v${version}"`

/** Whether an If-Match header names this version (`*` names any; a weak tag compares as its strong form). */
export const matches = (ifMatch: string, version: number) =>
  ifMatch.split(",").map((t) => t.trim().replace(/^W\//, "")).some((t) => t === "*" || t === etagOf(version))

/** The ETag header on this request's answer. */
export const withEtag = (version: number) =>
  HttpEffect.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, "etag", etagOf(version))))
