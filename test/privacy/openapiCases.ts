import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"

// The privacy routes' entries of test/http/openapi.test.ts's case table, kept here so that file only spreads them.

export interface PrivacyCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  readonly call: (method: string, path: string, options?: { key?: string; raw?: string; headers?: Record<string, string>; body?: unknown }) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly tenant: () => TestTenant
  /** A key of the tenant holding `privacy:write` (which `*` does not grant). */
  readonly privacyKey: () => string
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
const NO_BODY_422 = "no body to hold a request: 422 is the group's answer to a body that does not decode"
const email = () => `privacy.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@gmail.com`

export const privacyRoutes = (x: PrivacyCaseContext): Record<string, RouteCases> => {
  const { c } = x
  const as = (method: string, path: string, body?: unknown) => x.call(method, path, { key: x.privacyKey(), ...(body === undefined ? {} : { body }) })
  const suppression = () => ({ type: "suppress", subject: { email: email() } })
  const newRequest = async () => (await as("POST", "/api/v1/privacy/requests", suppression())).body.data.request_id as string
  return {
    "POST /api/v1/privacy/requests": {
      cases: [
        c(202, "a suppression", () => as("POST", "/api/v1/privacy/requests", suppression())),
        c(400, "a body that is not JSON", () => x.call("POST", "/api/v1/privacy/requests", { key: x.privacyKey(), raw: "{" })),
        c(422, "a subject named two ways", () => as("POST", "/api/v1/privacy/requests", { type: "erase", subject: { email: email(), phone: "+34600111222" } })),
        c(409, "a reference naming another request", async () => {
          const reference = `ticket-${Date.now()}-${Math.random()}`
          await as("POST", "/api/v1/privacy/requests", { ...suppression(), reference })
          return as("POST", "/api/v1/privacy/requests", { ...suppression(), reference })
        }),
        ...x.keyCases("POST", "/api/v1/privacy/requests", suppression())
      ]
    },
    "GET /api/v1/privacy/requests": {
      cases: [
        c(200, "the requests", () => as("GET", "/api/v1/privacy/requests?limit=2")),
        c(400, "an unknown status", () => as("GET", "/api/v1/privacy/requests?status=done")),
        ...x.keyCases("GET", "/api/v1/privacy/requests")
      ],
      notCaused: { 422: NO_BODY_422 }
    },
    "GET /api/v1/privacy/requests/{request_id}": {
      cases: [
        c(200, "a request", async () => as("GET", `/api/v1/privacy/requests/${await newRequest()}`)),
        c(404, "an unknown id", () => as("GET", `/api/v1/privacy/requests/${NO_SUCH_ID}`)),
        c(400, "NUL in the id (the text policy)", () => as("GET", "/api/v1/privacy/requests/%00")),
        ...x.keyCases("GET", `/api/v1/privacy/requests/${NO_SUCH_ID}`)
      ],
      notCaused: { 422: NO_BODY_422 }
    },
    "GET /api/v1/privacy/exports/{request_id}": {
      cases: [
        c(404, "a link whose signature does not hold", () =>
          x.call("GET", `/api/v1/privacy/exports/${NO_SUCH_ID}?expires=${Math.floor(Date.now() / 1000) + 600}&signature=forged`)),
        c(400, "a link without its signature", () => x.call("GET", `/api/v1/privacy/exports/${NO_SUCH_ID}?expires=1`))
      ],
      notCaused: { 200: "a downloadable export needs the workers' runner: test/privacy/erase.test.ts downloads one" }
    }
  }
}
