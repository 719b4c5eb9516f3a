import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import type { HttpResult } from "../support/platform.ts"

// The overview's entry of test/http/openapi.test.ts's case table, kept here so that file only spreads it.

export interface OverviewCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  /** A request with the tenant's live key. */
  readonly as: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly hotelId: () => string
}

export const overviewRoutes = (x: OverviewCaseContext): Record<string, RouteCases> => {
  const { c, as } = x
  return {
    "GET /api/v1/overview": {
      cases: [
        c(200, "the last 14 days (the table's reservations among them)", () => as("GET", "/api/v1/overview")),
        c(200, "one hotel over 92 days", () => as("GET", `/api/v1/overview?from=2026-01-01&to=2026-04-02&hotel_id=${x.hotelId()}`)),
        c(400, "a from that is no date", () => as("GET", "/api/v1/overview?from=2026-02-30")),
        c(422, "a range longer than 92 days", () => as("GET", "/api/v1/overview?from=2026-01-01&to=2026-04-03")),
        c(422, "to before from", () => as("GET", "/api/v1/overview?from=2026-04-03&to=2026-04-01")),
        ...x.keyCases("GET", "/api/v1/overview")
      ]
    }
  }
}
