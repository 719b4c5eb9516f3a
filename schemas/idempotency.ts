import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { Authentication } from "./security.ts"

/**
 * `Idempotency-Key` (issue 24): every POST authenticated by an API key honours it, unless listed here with the reason
 * it makes no sense there. A POST added later is covered by default; test/http/idempotency.test.ts names any POST that
 * is neither covered nor listed. Keys are `METHOD path` as the HttpApi declares the path (`:param`).
 */
export const IdempotencyOptOut: Readonly<Record<string, string>> = {
  "POST /api/v1/loyalty/calculate": "answers a quote and writes nothing: repeating it is already safe",
  "POST /api/webhooks/cti": "a telephony provider's webhook (its own token, not an API key): a call is patched idempotently by its call_id",
  "POST /api/webhooks/cti/:provider": "a telephony provider's webhook (its own token, not an API key): a call is patched idempotently by its call_id",
  "POST /api/loyalty/me/club-code": "a member's sign-in flow (a member's access token, not an API key)",
  "POST /api/loyalty/club/exchange": "a sign-in flow (club client credentials): a transfer code is used once",
  "POST /api/v1/newsletter/subscribe": "a page's form (publishable key and a Turnstile token, used once)",
  "POST /api/public/newsletter/confirm": "a confirmation link a person opens: confirming twice is already harmless",
  "POST /api/v1/staff/sign-in": "a person asking for a sign-in code (no API key): asking again sends a fresh code, which is what a retry wants",
  "POST /api/v1/staff/sign-in/verify": "a one-time code (no API key): it is used once, and a replayed answer would hand out a second session cookie",
  "POST /api/v1/staff/sign-out": "a staff session's cookie, not an API key: signing out twice is already harmless"
}

/** The header's rule: 1-255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/

/** Whether an endpoint of the API honours `Idempotency-Key`: a POST behind the API-key authentication, not opted out. */
export const honoursIdempotencyKey = (method: string, path: string, authenticatedByApiKey: boolean): boolean =>
  method === "POST" && authenticatedByApiKey && IdempotencyOptOut[`${method} ${path}`] === undefined

/** Every operation of `api` that honours the header, as `POST /path/{param}` (the document's spelling). */
export const idempotentOperations = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>): ReadonlySet<string> => {
  const covered = new Set<string>()
  HttpApi.reflect(api, {
    onGroup() {},
    onEndpoint({ endpoint, middleware }) {
      if (honoursIdempotencyKey(endpoint.method, endpoint.path, middleware.has(Authentication as never))) {
        covered.add(`${endpoint.method} ${endpoint.path.replace(/:(\w+)/g, "{$1}")}`)
      }
    }
  })
  return covered
}
