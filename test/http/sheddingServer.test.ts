import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { AddressInfo } from "node:net"
import { Agent, request as httpRequest } from "node:http"
import { LoopPressure } from "../../src/http/LoopPressure.ts"
import { sheddingServer } from "../../src/http/sheddingServer.ts"

/** A shedding server whose application answers 200 "app"; `saturated` says when it sheds. */
const serve = async (saturated: () => boolean) => {
  const server = sheddingServer(saturated)
  server.on("request", (req, res) => {
    req.resume()
    req.on("end", () => res.end("app"))
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return { server, port: (server.address() as AddressInfo).port }
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const call = (port: number, method: string, path: string, body?: string) =>
  new Promise<{ status: number; headers: Record<string, unknown>; text: string; socket: unknown }>((resolve, reject) => {
    const req = httpRequest({ agent, host: "127.0.0.1", port, method, path, headers: body === undefined ? {} : { "content-type": "application/json" } }, (res) => {
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text, socket: req.socket }))
    })
    req.on("error", reject)
    req.end(body)
  })

describe("the ingress's shedding HTTP server", () => {
  it("while saturated: a write to /api/v1 is answered 503 in the core error shape, Retry-After and a request id, and the connection is reused", async () => {
    const { server, port } = await serve(() => true)
    try {
      const big = JSON.stringify({ reservation_id: "R-1", pad: "x".repeat(200_000) })
      const first = await call(port, "POST", "/api/v1/reservations", big)
      expect(first.status).toBe(503)
      expect(first.headers["retry-after"]).toBe("2")
      const body = JSON.parse(first.text)
      expect(body).toEqual({
        success: false,
        error: { code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("capacity"), details: { retry_after_seconds: 2 }, request_id: first.headers["x-request-id"] }
      })
      // The unread body was drained: the same connection carries the next request.
      const second = await call(port, "GET", "/api/v1/reservations")
      expect(second.status).toBe(200)
      expect(second.socket).toBe(first.socket)
      // Reads, other families and probes go to the application.
      for (const [method, path] of [["GET", "/api/v1/contacts"], ["POST", "/api/loyalty/members"], ["POST", "/api/oidc/token"], ["GET", "/healthz"]] as const) {
        expect((await call(port, method, path, method === "POST" ? "{}" : undefined)).text).toBe("app")
      }
    } finally {
      server.close()
    }
  })

  it("not saturated: every request reaches the application", async () => {
    const { server, port } = await serve(() => false)
    try {
      expect((await call(port, "POST", "/api/v1/reservations", "{}")).text).toBe("app")
    } finally {
      server.close()
    }
  })

  it.live("LoopPressure: a loop held busy reads as saturated; idle again, it does not", () =>
    Effect.gen(function*() {
      const pressure = yield* LoopPressure
      yield* Effect.sleep("250 millis")
      expect(pressure.saturated()).toBe(false)
      // Turns 80 ms long, ten times over: the sampler, running between them, finds the mean lateness over the 50 ms threshold.
      for (let i = 0; i < 10; i++) {
        const until = performance.now() + 80
        while (performance.now() < until);
        yield* Effect.sleep("1 millis")
      }
      expect(pressure.saturated()).toBe(true)
      yield* Effect.sleep("350 millis")
      expect(pressure.saturated()).toBe(false)
    }).pipe(Effect.provide(LoopPressure.layer)))
})
