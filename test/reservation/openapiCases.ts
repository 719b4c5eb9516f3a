import { c, type Case, type RouteCases } from "../http/rawRouteCases.ts"
import { reservation } from "../support/fixtures.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"
import { eventRoutes } from "../event/openapiCases.ts"

// The read routes' entries of test/http/openapi.test.ts's case table (reservations and events), kept here so that
// file only spreads them.

export interface ReadCaseContext {
  readonly call: (method: string, path: string, options?: { key?: string; body?: unknown }) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly tenant: () => TestTenant
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
const R = "/api/v1/reservations"

export const readRoutes = (x: ReadCaseContext): Record<string, RouteCases> => {
  const as = (path: string) => x.call("GET", path, { key: x.tenant().live_key })
  /** A stored reservation: our id and the partner's. */
  const stored = async () => {
    const body = reservation({ hotel_code: x.tenant().hotel_code })
    const res = await x.call("POST", R, { key: x.tenant().live_key, body })
    if (res.status !== 201) throw new Error(`fixture request failed: ${res.status} ${JSON.stringify(res.body)}`)
    return { id: res.body.data.reservation_id as string, external: body.reservation_id as string, event_id: res.body.data.event_id as string }
  }
  return {
    [`GET ${R}`]: {
      cases: [
        c(200, "a page of the tenant's reservations", async () => {
          await stored()
          return as(`${R}?limit=2`)
        }),
        c(200, "every filter set, and a next page", async () => {
          await Promise.all([stored(), stored()])
          const first = await as(`${R}?limit=1`)
          return as(`${R}?hotel_id=${x.tenant().hotel_id}&status=confirmed&check_in_from=2026-01-01&check_in_to=2026-12-31` +
            `&updated_since=${encodeURIComponent("2026-01-01T00:00:00+01:00")}&contact_id=${NO_SUCH_ID}&limit=5&cursor=${first.body.data.next_cursor}`)
        }),
        c(400, "a malformed hotel_id (the query schema)", () => as(`${R}?hotel_id=not-a-uuid`)),
        c(400, "a limit out of range (the page request)", () => as(`${R}?limit=0`)),
        ...x.keyCases("GET", R)
      ]
    },
    [`GET ${R}/{id}`]: {
      cases: [
        c(200, "by our reservation_id", async () => as(`${R}/${(await stored()).id}`)),
        c(200, "by the partner's reservation_id", async () => as(`${R}/${encodeURIComponent((await stored()).external)}`)),
        c(200, "by the partner's id, forced with by=external", async () => as(`${R}/${encodeURIComponent((await stored()).external)}?by=external`)),
        c(400, "a by other than external", () => as(`${R}/x?by=internal`)),
        c(400, "NUL in the path parameter (the text policy)", () => as(`${R}/%00`)),
        c(404, "an unknown id", () => as(`${R}/${NO_SUCH_ID}`)),
        ...x.keyCases("GET", `${R}/x`)
      ]
    },
    ...eventRoutes({ ...x, stored })
  }
}
