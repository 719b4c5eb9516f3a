import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { request, startPlatform, type RunningPlatform } from "../support/platform.ts"

let platform: RunningPlatform
beforeAll(async () => {
  platform = await startPlatform("health")
})
afterAll(async () => {
  await platform?.stop()
})

describe("health, readiness and the contract", () => {
  it("answers /healthz and /readyz with the state of NATS, PostgreSQL and the streams", async () => {
    expect((await request(platform.baseUrl, "GET", "/healthz")).body).toEqual({ status: "ok" })
    const ready = await request(platform.baseUrl, "GET", "/readyz")
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: "ready", checks: { postgres: true, nats: true, streams: true } })
  })

  it("serves an OpenAPI 3.1 document generated from the schemas, and a docs page", async () => {
    const doc = await request(platform.baseUrl, "GET", "/openapi.json")
    expect(doc.status).toBe(200)
    expect(doc.body.openapi).toMatch(/^3\.1/)
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining([
      "/api/v1/reservations", "/api/v1/reservations/batch", "/api/v1/reservations/{id}",
      "/api/v1/guests", "/api/v1/guests/batch", "/api/v1/fields", "/api/v1/events"
    ]))
    expect(Object.keys(doc.body.paths["/api/v1/guests"])).toEqual(expect.arrayContaining(["get", "post"]))
    expect(Object.keys(doc.body.paths["/api/v1/fields"])).toEqual(expect.arrayContaining(["get", "post"]))
    const upsert = doc.body.paths["/api/v1/reservations"].post
    expect(Object.keys(upsert.responses)).toEqual(expect.arrayContaining(["200", "201", "400", "401", "403", "422", "429", "503"]))
    expect(JSON.stringify(upsert.requestBody)).toContain("reservation_id")
    const docs = await request(platform.baseUrl, "GET", "/docs")
    expect(docs.status).toBe(200)
    expect(docs.headers.get("content-type")).toContain("text/html")
  })

  it("serves Prometheus metrics: HTTP by route template, worker partitions, mailboxes, outbox backlog", async () => {
    await request(platform.baseUrl, "GET", "/api/v1/reservations/00000000-0000-4000-8000-000000000000")
    const res = await request(platform.baseUrl, "GET", "/metrics")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/plain")
    const text = String(res.body)
    expect(text).toMatch(/gep_http_requests_total\{route="\/api\/v1\/reservations\/:id",method="GET",status="401"\} 1/)
    for (const name of ["gep_http_request_duration_seconds_bucket", "gep_owned_partitions{actor=\"reservation\"}", "gep_mailbox_depth", "gep_live_actors", "gep_outbox_backlog", "gep_consumer_pending"]) {
      expect(text).toContain(name)
    }
  })

  it("serves the process's own figures under Node's usual names: CPU, heap, event-loop delay, GC pauses by kind", async () => {
    // A GC of each kind, so the pause histogram has a sample whatever the process did before.
    const junk: Array<unknown> = []
    for (let i = 0; i < 200_000; i++) junk.push({ i })
    const text = String((await request(platform.baseUrl, "GET", "/metrics")).body)
    for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_max_seconds"]) {
      expect(text).toMatch(new RegExp(`^${name} [0-9.e+-]+$`, "m"))
    }
    expect(text).toMatch(/^nodejs_gc_duration_seconds_count\{kind="minor"\} [1-9]/m)
    expect(junk.length).toBe(200_000)
  })
})
