import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { requestEdge } from "../../src/http/requestEdge.ts"
import { createTenant, request, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"

/** X-Request-Id on every answer (errors included, in their bodies and log lines), and 405 with Allow for a known path. */

let platform: RunningPlatform
let tenant: TestTenant

beforeAll(async () => {
  platform = await startPlatform("reqid")
  tenant = await createTenant("reqid")
}, 60_000)
afterAll(async () => {
  await platform?.stop()
})

const GENERATED = /^req_[0-9a-f]{24}$/

describe("X-Request-Id", () => {
  it("is made for a request without one, on a success of a raw route and of the HttpApi", async () => {
    const health = await request(platform.baseUrl, "GET", "/healthz")
    expect(health.headers.get("x-request-id")).toMatch(GENERATED)
    const fields = await request(platform.baseUrl, "GET", "/api/v1/fields", { key: tenant.live_key })
    expect(fields.status).toBe(200)
    expect(fields.headers.get("x-request-id")).toMatch(GENERATED)
  })

  it("echoes a well-formed one and replaces a malformed one", async () => {
    const mine = "trace-42:abc_DEF.1"
    expect((await request(platform.baseUrl, "GET", "/healthz", { headers: { "x-request-id": mine } })).headers.get("x-request-id")).toBe(mine)
    for (const bad of ["has space", "x".repeat(129), "<script>"]) {
      expect((await request(platform.baseUrl, "GET", "/healthz", { headers: { "x-request-id": bad } })).headers.get("x-request-id")).toMatch(GENERATED)
    }
  })

  it("is in every error body as error.request_id: the HttpApi's, the router's, the raw routes' (website events' own shape too)", async () => {
    const answers = await Promise.all([
      request(platform.baseUrl, "POST", "/api/v1/guests", { key: tenant.live_key, body: { first_name: 3 } }),
      request(platform.baseUrl, "GET", "/api/v1/fields"),
      request(platform.baseUrl, "GET", "/api/v1/no-such-route", { headers: { "x-request-id": "mine-1" } }),
      request(platform.baseUrl, "POST", "/api/v1/guests", { key: tenant.live_key, raw: "x", contentType: "text/plain" }),
      request(platform.baseUrl, "POST", "/api/v1/website-events", { raw: "{}" })
    ])
    expect(answers.map((a) => a.status)).toEqual([400, 401, 404, 415, 401])
    for (const a of answers) {
      expect(a.body.error.request_id).toBe(a.headers.get("x-request-id"))
    }
    expect(answers[2]!.body.error.request_id).toBe("mine-1")
  })
})

describe("a known path with another method", () => {
  it("is 405 with Allow listing the path's methods, in the core error shape (HttpApi routes)", async () => {
    const res = await request(platform.baseUrl, "PUT", "/api/v1/reservations", { key: tenant.live_key, body: {} })
    expect(res.status).toBe(405)
    const allow = res.headers.get("allow")!.split(", ")
    expect(allow).toContain("POST")
    expect(allow).not.toContain("PUT")
    expect(res.body).toMatchObject({ success: false, error: { code: "METHOD_NOT_ALLOWED", details: { allowed_methods: allow } } })
    expect(res.body.error.request_id).toBe(res.headers.get("x-request-id"))
    // A path with a parameter.
    const webhook = await request(platform.baseUrl, "PUT", "/api/v1/webhooks/00000000-0000-4000-8000-000000000000", { key: tenant.live_key, body: {} })
    expect(webhook.status).toBe(405)
    expect(webhook.headers.get("allow")!.split(", ")).toEqual(expect.arrayContaining(["DELETE", "GET", "PATCH"]))
  })

  it("is 405 on raw routes too; OPTIONS on the CORS route still answers its preflight", async () => {
    const health = await request(platform.baseUrl, "DELETE", "/healthz")
    expect(health.status).toBe(405)
    expect(health.headers.get("allow")).toBe("GET, HEAD")
    const events = await request(platform.baseUrl, "GET", "/api/v1/website-events")
    expect(events.status).toBe(405)
    expect(events.headers.get("allow")!.split(", ")).toContain("POST")
    const preflight = await fetch(platform.baseUrl + "/api/v1/website-events", {
      method: "OPTIONS", headers: { origin: "https://shop.example.com", "access-control-request-method": "POST" }
    })
    expect(preflight.status).not.toBe(405)
    expect(preflight.status).toBeLessThan(300)
  })

  it("leaves unknown paths 404 and a handler's own 404 alone", async () => {
    expect((await request(platform.baseUrl, "PUT", "/api/v1/nothing-here")).status).toBe(404)
    const missing = await request(platform.baseUrl, "GET", "/api/v1/webhooks/00000000-0000-4000-8000-000000000000", { key: tenant.live_key })
    expect(missing.status).toBe(404)
    expect(missing.headers.get("allow")).toBeNull()
  })
})

describe("log lines", () => {
  it.effect("written while handling a request carry its request_id", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const capture = Logger.make((options) => {
        seen.push(options.fiber.getRef(References.CurrentLogAnnotations).request_id)
      })
      const handler = Effect.logInfo("handling").pipe(Effect.as(HttpServerResponse.empty({ status: 204 })))
      const response = yield* requestEdge({})(handler).pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request("http://local/x", { headers: { "x-request-id": "log-7" } }))),
        Effect.provideService(Logger.CurrentLoggers, new Set([capture]))
      )
      expect(response.headers["x-request-id"]).toBe("log-7")
      expect(seen).toEqual(["log-7"])
    }))
})
