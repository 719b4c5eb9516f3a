import { randomUUID } from "node:crypto"
import { HttpBody, HttpServerResponse } from "effect/http"
import { REQUEST_ID_PATTERN } from "../../schemas/edgeDocument.ts"

const WELL_FORMED = new RegExp(REQUEST_ID_PATTERN)

/**
 * The caller's X-Request-Id when well-formed (so its logs and ours join), else a new `req_` + 24 hex digits: random
 * ones from `randomUUID`, which draws from a buffered pool (one `randomBytes` call per request cost 2 % of the
 * ingress's CPU on reads), skipping its version and variant digits.
 */
export const requestIdOf = (incoming: string | undefined): string => {
  if (incoming !== undefined && WELL_FORMED.test(incoming)) return incoming
  const u = randomUUID()
  return `req_${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(15, 18)}${u.slice(20, 23)}${u.slice(24, 30)}`
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * An error answer with `error.request_id` set, for every shape whose `error` is an object with a code and a message
 * (the core shape and the website-events shape); any other answer as it is. Rendered here, once, rather than by each
 * of the places that build error bodies (error classes, raw routes, the router's own answers).
 */
export const withRequestIdInBody = (response: HttpServerResponse.HttpServerResponse, requestId: string): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (response.status < 400 || body._tag !== "Uint8Array" || !body.contentType.startsWith("application/json")) return response
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(body.body).toString("utf8"))
  } catch {
    return response
  }
  if (!isRecord(parsed) || !isRecord(parsed.error) || typeof parsed.error.code !== "string" || typeof parsed.error.message !== "string") {
    return response
  }
  const withId = { ...parsed, error: { ...parsed.error, request_id: requestId } }
  return HttpServerResponse.setBody(response, HttpBody.uint8Array(new TextEncoder().encode(JSON.stringify(withId)), body.contentType))
}
