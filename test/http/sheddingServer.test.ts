import { describe, expect, it } from "@effect/vitest"
import type { AddressInfo } from "node:net"
import { Agent, request as httpRequest } from "node:http"
import { sheddingServer } from "../../src/http/sheddingServer.ts"

/** A shedding server whose application answers 200 "app" once `release()` is called (at once when not held). */
const serve = async (bound: () => number, held = false) => {
  const server = sheddingServer(bound)
  const waiting: Array<() => void> = []
  server.on("request", (req, res) => {
    req.resume()
    req.on("end", () => (held ? waiting.push(() => res.end("app")) : res.end("app")))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { server, port: (server.address() as AddressInfo).port, release: () => waiting.splice(0).forEach((f) => f()), waiting }
}

const call = (agent: Agent, port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, unknown>; text: string; socket: unknown }>((resolve, reject) => {
    const req = httpRequest({ agent, host: "127.0.0.1", port, method, path, headers: body === undefined ? headers : { ...headers, "content-type": "application/json" } }, (res) => {
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text, socket: req.socket }))
    })
    req.on("error", reject)
    req.end(body)
  })

describe("the ingress's shedding HTTP server", () => {
  it("a write beyond the bound is answered 503 in the core error shape, with Retry-After and a request id; the connection is reused", async () => {
    const { server, port } = await serve(() => 0)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const big = JSON.stringify({ reservation_id: "R-1", pad: "x".repeat(200_000) })
      const first = await call(agent, port, "POST", "/api/v1/reservations", big)
      expect(first.status).toBe(503)
      expect(first.headers["retry-after"]).toBe("2")
      expect(JSON.parse(first.text)).toEqual({
        success: false,
        error: { code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("capacity"), details: { retry_after_seconds: 2 }, request_id: first.headers["x-request-id"] }
      })
      // The unread body was drained: the same connection carries the next request.
      const second = await call(agent, port, "GET", "/api/v1/reservations")
      expect(second.status).toBe(200)
      expect(second.socket).toBe(first.socket)
      // Reads, other families and probes always reach the application.
      for (const [method, path] of [["GET", "/api/v1/contacts"], ["POST", "/api/loyalty/members"], ["POST", "/api/oidc/token"], ["GET", "/healthz"]] as const) {
        expect((await call(agent, port, method, path, method === "POST" ? "{}" : undefined)).text).toBe("app")
      }
    } finally {
      agent.destroy()
      server.close()
    }
  })

  it("a website event beyond the bound is answered in its family's shape (unavailable, 503), with the origin echoed for the browser", async () => {
    const { server, port } = await serve(() => 0)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const origin = "https://hotel.example"
      for (const path of ["/api/v1/website-events?key=svc_pk_x", "/api/v1/website-events/hooks/tok"]) {
        const shed = await call(agent, port, "POST", path, "{}", { origin })
        expect(shed.status).toBe(503)
        expect(shed.headers["retry-after"]).toBe("2")
        expect(shed.headers["access-control-allow-origin"]).toBe(origin)
        expect(shed.headers["access-control-expose-headers"]).toContain("Retry-After")
        expect(JSON.parse(shed.text)).toEqual({
          error: { code: "unavailable", message: expect.any(String), detail: expect.stringContaining("capacity"), fix: expect.stringContaining("Retry-After"), docs: "/docs/website-events#unavailable",
            request_id: shed.headers["x-request-id"] }
        })
      }
    } finally {
      agent.destroy()
      server.close()
    }
  })

  it("counts the writes in the application: at the bound the next is turned away, and a place frees when an answer leaves", async () => {
    const app = await serve(() => 2, true)
    const agent = new Agent({ keepAlive: true, maxSockets: 10 })
    try {
      const held = [call(agent, app.port, "POST", "/api/v1/reservations", "{}"), call(agent, app.port, "POST", "/api/v1/guests", "{}")]
      while (app.waiting.length < 2) await new Promise((r) => setTimeout(r, 5))
      expect((await call(agent, app.port, "POST", "/api/v1/events", "{}")).status).toBe(503)
      app.release()
      expect((await Promise.all(held)).map((r) => r.text)).toEqual(["app", "app"])
      const next = call(agent, app.port, "POST", "/api/v1/events", "{}")
      while (app.waiting.length < 1) await new Promise((r) => setTimeout(r, 5))
      app.release()
      expect((await next).status).toBe(200)
    } finally {
      agent.destroy()
      app.server.close()
    }
  })
})
