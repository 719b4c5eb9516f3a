import { c, type Case, type RouteCases } from "../http/rawRouteCases.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"

// The event reads' entries of test/http/openapi.test.ts's case table (spread through test/reservation/openapiCases.ts).

export interface EventCaseContext {
  readonly call: (method: string, path: string, options?: { key?: string; body?: unknown }) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly tenant: () => TestTenant
  /** A stored reservation, whose booking event is a real event id. */
  readonly stored: () => Promise<{ readonly event_id: string }>
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
const E = "/api/v1/events"

export const eventRoutes = (x: EventCaseContext): Record<string, RouteCases> => {
  const as = (path: string) => x.call("GET", path, { key: x.tenant().live_key })
  return {
    [`GET ${E}`]: {
      cases: [
        c(200, "a page of the tenant's events", async () => {
          await x.stored()
          return as(`${E}?limit=2`)
        }),
        c(200, "every filter set", () => as(`${E}?type=booking.created&contact_id=${NO_SUCH_ID}&since=${encodeURIComponent("2026-01-01T00:00:00Z")}&limit=5`)),
        c(400, "a since without an offset", () => as(`${E}?since=2026-01-01T00:00:00`)),
        c(400, "a cursor this API did not issue", () => as(`${E}?cursor=nope`)),
        ...x.keyCases("GET", E)
      ]
    },
    [`GET ${E}/{event_id}`]: {
      cases: [
        c(200, "a booking event", async () => as(`${E}/${(await x.stored()).event_id}`)),
        c(400, "a malformed event_id", () => as(`${E}/not-a-uuid`)),
        c(404, "an unknown event_id", () => as(`${E}/${NO_SUCH_ID}`)),
        ...x.keyCases("GET", `${E}/${NO_SUCH_ID}`)
      ]
    }
  }
}
