import { describe, expect, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { routeLabel } from "../../src/http/metrics.ts"

describe("route labels (metrics and the access log)", () => {
  it("name every documented route by its template, never by a value from its path or query", () => {
    const templates = Object.keys(OpenApi.fromApi(Api).paths)
    expect(templates.length).toBeGreaterThan(100)
    for (const template of templates) {
      const path = template.replace(/\{\w+\}/g, "svc_wh_SECRETVALUE0123456789")
      const label = routeLabel(`${path}?token=svc_wh_SECRETQUERY0123`)
      expect(label, template).toBe(template.replace(/\{(\w+)\}/g, ":$1"))
    }
  })

  it("take a literal route before a template that would also match it", () => {
    expect(routeLabel("/api/v1/reservations/batch")).toBe("/api/v1/reservations/batch")
    expect(routeLabel("/api/v1/reservations/PMS-123")).toBe("/api/v1/reservations/:id")
  })

  it("fold every console screen into one label, however deep its path", () => {
    expect(routeLabel("/console/contacts/3f1e2d4c-0000-4000-8000-000000000000")).toBe("/console/:path")
    expect(routeLabel("/console/a/b/c?q=ana@example.com")).toBe("/console/:path")
    expect(routeLabel("/console/assets/main-ABC.js")).toBe("/console/assets/:file")
  })
})
