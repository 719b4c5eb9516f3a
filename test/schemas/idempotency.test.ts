import { describe, expect, it } from "@effect/vitest"
import { HttpApi, OpenApi } from "effect/http-api"
import { Api } from "../../schemas/api.ts"
import { honoursIdempotencyKey, IdempotencyOptOut } from "../../schemas/idempotency.ts"
import { Authentication } from "../../schemas/security.ts"

/**
 * Every POST of the Api honours Idempotency-Key or is opted out with its reason (a POST added later is covered by
 * default), and /openapi.json says so on each covered operation.
 */

const posts: Array<{ key: string; docKey: string; covered: boolean }> = []
HttpApi.reflect(Api, {
  onGroup() {},
  onEndpoint({ endpoint, middleware }) {
    if (endpoint.method !== "POST") return
    posts.push({
      key: `POST ${endpoint.path}`,
      docKey: endpoint.path.replace(/:(\w+)/g, "{$1}"),
      covered: honoursIdempotencyKey("POST", endpoint.path, middleware.has(Authentication as never))
    })
  }
})
const doc = OpenApi.fromApi(Api) as unknown as {
  paths: Record<string, Record<string, { parameters?: ReadonlyArray<{ name?: string; in?: string }>; responses: Record<string, unknown> }>>
}

describe("Idempotency-Key coverage", () => {
  it("names every POST that is neither covered nor opted out", () => {
    expect(posts.filter((p) => !p.covered && IdempotencyOptOut[p.key] === undefined).map((p) => p.key)).toEqual([])
    expect(posts.filter((p) => p.covered).length).toBeGreaterThan(40)
  })

  it("opts out only routes that exist, each with its reason", () => {
    const keys = new Set(posts.map((p) => p.key))
    for (const [route, reason] of Object.entries(IdempotencyOptOut)) {
      expect(keys.has(route), route).toBe(true)
      expect(reason.length).toBeGreaterThan(10)
    }
  })

  it("documents the header, Idempotent-Replayed and the 409 on each covered operation, and only there", () => {
    for (const p of posts) {
      const op = doc.paths[p.docKey]!.post!
      const names = (op.parameters ?? []).filter((x) => x.in === "header").map((x) => x.name)
      expect(names.includes("Idempotency-Key"), p.key).toBe(p.covered)
      if (p.covered) expect(op.responses["409"], p.key).toBeDefined()
    }
  })

  it("documents X-Request-Id on every operation and answer", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect((op.parameters ?? []).map((x) => x.name), `${method} ${path}`).toContain("X-Request-Id")
        for (const [status, response] of Object.entries(op.responses)) {
          expect((response as { headers?: Record<string, unknown> }).headers, `${method} ${path} ${status}`).toHaveProperty("X-Request-Id")
        }
      }
    }
  })
})
