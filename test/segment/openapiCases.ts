import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"

// The segments routes' entries of test/http/openapi.test.ts's case table, kept here so that file only spreads them.

export interface SegmentCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  /** A request with the tenant's live key. */
  readonly as: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  readonly call: (method: string, path: string, options?: { key?: string; raw?: string; headers?: Record<string, string>; body?: unknown }) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly tenant: () => TestTenant
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
/** The group's schema-error middleware documents 422 for every route; a route reading no body cannot cause it. */
const NO_BODY_422 = "no body to hold a definition: 422 is the group's answer to a definition that does not decode"
const definition = { version: 1, match: { all: [{ field: "contact.language", op: "in", value: ["es", "ca"] }, { has_stay: { where: { field: "stay.nights", op: "gte", value: 2 } } }] } }
const unknownField = { version: 1, match: { field: "contact.shoe_size", op: "eq", value: "42" } }

export const segmentRoutes = (x: SegmentCaseContext): Record<string, RouteCases> => {
  const { c, as } = x
  const body = { name: "OpenAPI segment", definition }
  const newSegment = async () => (await as("POST", "/api/v1/segments", body)).body.data.segment_id as string
  return {
    "POST /api/v1/segments": {
      cases: [
        c(201, "a segment", () => as("POST", "/api/v1/segments", body)),
        c(400, "a body that is not JSON", () => x.call("POST", "/api/v1/segments", { key: x.tenant().live_key, raw: "{" })),
        c(422, "an unknown field in the tree", () => as("POST", "/api/v1/segments", { name: "bad", definition: unknownField })),
        ...x.keyCases("POST", "/api/v1/segments", body)
      ]
    },
    "GET /api/v1/segments": {
      cases: [
        c(200, "the segments", () => as("GET", "/api/v1/segments?limit=2")),
        c(400, "a limit out of range", () => as("GET", "/api/v1/segments?limit=0")),
        ...x.keyCases("GET", "/api/v1/segments")
      ],
      notCaused: { 422: NO_BODY_422 }
    },
    "GET /api/v1/segments/{id}": {
      cases: [
        c(200, "a segment", async () => as("GET", `/api/v1/segments/${await newSegment()}`)),
        c(400, "NUL in the id (the text policy)", () => as("GET", "/api/v1/segments/%00")),
        c(404, "an unknown id", () => as("GET", `/api/v1/segments/${NO_SUCH_ID}`)),
        ...x.keyCases("GET", `/api/v1/segments/${NO_SUCH_ID}`)
      ],
      notCaused: { 422: NO_BODY_422 }
    },
    "PATCH /api/v1/segments/{id}": {
      cases: [
        c(200, "a renamed segment", async () => as("PATCH", `/api/v1/segments/${await newSegment()}`, { name: "Renamed" })),
        c(400, "a body that is not JSON", () => x.call("PATCH", `/api/v1/segments/${NO_SUCH_ID}`, { key: x.tenant().live_key, raw: "{" })),
        c(404, "an unknown id", () => as("PATCH", `/api/v1/segments/${NO_SUCH_ID}`, { name: "x" })),
        c(412, "If-Match naming another version", async () =>
          x.call("PATCH", `/api/v1/segments/${await newSegment()}`, { key: x.tenant().live_key, body: { name: "x" }, headers: { "if-match": "\"v9\"" } })),
        c(422, "a definition that does not check", async () => as("PATCH", `/api/v1/segments/${await newSegment()}`, { definition: unknownField })),
        ...x.keyCases("PATCH", `/api/v1/segments/${NO_SUCH_ID}`, { name: "x" })
      ]
    },
    "POST /api/v1/segments/preview": {
      cases: [
        c(200, "a preview", () => as("POST", "/api/v1/segments/preview", { definition })),
        c(400, "neither definition nor segment_id", () => as("POST", "/api/v1/segments/preview", {})),
        c(404, "an unknown segment_id", () => as("POST", "/api/v1/segments/preview", { segment_id: NO_SUCH_ID })),
        c(422, "a definition that does not check", () => as("POST", "/api/v1/segments/preview", { definition: unknownField })),
        ...x.keyCases("POST", "/api/v1/segments/preview", { definition })
      ]
    }
  }
}
