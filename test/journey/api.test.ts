import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { phone } from "../support/fixtures.ts"
import { createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The journeys API against the real platform (HTTP, PostgreSQL with row-level security). Runs are written by the
// journey actor; here they are inserted with SQL to test the read side.

let platform: RunningPlatform
let tenant: TestTenant
let contactId: string
const sql = testSql()

/** The value `probe` finds, polling until it finds one (10 s at most). */
const eventually = async <A>(probe: () => Promise<A | undefined>): Promise<A> => {
  for (let i = 0; i < 100; i++) {
    const found = await probe()
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error("not found in time")
}

beforeAll(async () => {
  platform = await startPlatform("journeys")
  tenant = await createTenant("journeys")
  const g = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: phone(7_101), first_name: "Jo", last_name: "Urney" })
  contactId = g.body.data.contact_id
  // A WhatsApp channel with one registered template, and an email sender.
  await sql`INSERT INTO channel_whatsapp (tenant_id, sandbox, phone_number_id, access_token_encrypted, app_secret_encrypted)
    VALUES (${tenant.tenant_id}, false, ${randomUUID()}, '\\x00', '\\x00')`
  await sql`INSERT INTO whatsapp_templates (tenant_id, sandbox, name, language, category, body_parameters)
    VALUES (${tenant.tenant_id}, false, 'cart_reminder', 'es', 'marketing', 2)`
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${tenant.tenant_id}, false, 'stay@hotel.example')`
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const call = (method: string, path: string, body?: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  request(platform.baseUrl, method, path, { key: options.key ?? tenant.live_key, ...(body === undefined ? {} : { body }), ...(options.headers ? { headers: options.headers } : {}) })

const cartRecovery = (overrides: Record<string, unknown> = {}) => ({
  name: "Cart recovery",
  trigger: { type: "event", event: "cart.abandoned", stop_when: ["checkout.completed"], reentry: { after: "P7D" } },
  steps: [
    { id: "w1", type: "wait", duration: "PT1H" },
    { id: "e1", type: "email", category: "marketing", subject: "Your stay at {{event_hotel_name}}", html: "<a href=\"{{event_resume_url}}\">Resume</a>", text: "{{event_resume_url}}" },
    { id: "b1", type: "branch", if: { consent: "whatsapp_marketing" }, then: "wa1", else: "end" },
    { id: "wa1", type: "whatsapp", category: "marketing", template: "cart_reminder", language: "es", params: ["contact.first_name", "event.payload.context.resume_url"] }
  ],
  ...overrides
})
const create = async (body: Record<string, unknown> = cartRecovery()) => {
  const res = await call("POST", "/api/v1/journeys", body)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data as { journey_id: string; version: number; status: string }
}
const count = async (t = tenant) => (await sql`SELECT count(*)::int AS n FROM journey_definitions WHERE tenant_id = ${t.tenant_id}`)[0]!.n as number

describe("journey definitions", () => {
  it("creates a draft (version 1), reads it back with its ETag, and keeps the header an event's match reads", async () => {
    const res = await call("POST", "/api/v1/journeys", cartRecovery({ hotel_ids: [tenant.hotel_id] }))
    expect(res.status).toBe(201)
    expect(res.body).toEqual({ success: true, data: { journey_id: expect.any(String), version: 1, status: "draft", warnings: [] } })
    const id = res.body.data.journey_id
    const got = await call("GET", `/api/v1/journeys/${id}`)
    expect(got.status).toBe(200)
    expect(got.headers.get("etag")).toBe("\"v1\"")
    expect(got.body.data).toMatchObject({
      journey_id: id, name: "Cart recovery", status: "draft", version: 1, trigger_type: "event", trigger_event: "cart.abandoned",
      hotel_ids: [tenant.hotel_id], trigger: cartRecovery().trigger, steps: cartRecovery().steps
    })
    const [header] = await sql`SELECT trigger_event_type, trigger_type, hotel_ids::text[] AS hotel_ids, status FROM journey_definitions WHERE id = ${id}`
    expect(header).toEqual({ trigger_event_type: "cart.abandoned", trigger_type: "event", hotel_ids: [tenant.hotel_id], status: "draft" })
    const versions = await sql`SELECT version, definition FROM journey_versions WHERE journey_id = ${id}`
    expect(versions).toEqual([{ version: 1, definition: { ...cartRecovery(), hotel_ids: [tenant.hotel_id] } }])
  })

  it("creates an active date journey (no trigger event), with a warning for an unreachable step", async () => {
    const saved = await create({
      name: "Pre-arrival", status: "active",
      trigger: { type: "reservation_date", anchor: "check_in", offset: "-P2D", local_time: "10:00", late: "send" },
      steps: [{ id: "e1", type: "email", category: "utility", subject: "See you soon, {{contact_first_name}}", text: "Check-in {{event_check_in}}" }, { id: "x", type: "end" }, { id: "orphan", type: "end" }]
    })
    expect(saved.status).toBe("active")
    const res = await call("POST", "/api/v1/journeys", { name: "Orphan", trigger: { type: "event", event: "booking.created" }, steps: [{ id: "a", type: "end" }, { id: "b", type: "end" }] })
    expect(res.body.data.warnings).toEqual([{ path: "steps[1]", message: expect.stringContaining("never reached") }])
    const [header] = await sql`SELECT trigger_event_type, trigger_type, status FROM journey_definitions WHERE id = ${saved.journey_id}`
    expect(header).toEqual({ trigger_event_type: null, trigger_type: "reservation_date", status: "active" })
  })

  it("refuses bad definitions with 422 naming the field, saving nothing", async () => {
    const before = await count()
    const steps = cartRecovery().steps
    const cases: Array<[string, Record<string, unknown>, string, string?]> = [
      ["unknown step type", cartRecovery({ steps: [{ id: "s", type: "sms", text: "x" }] }), "steps[0]"],
      ["branch to a missing step", cartRecovery({ steps: [...steps.slice(0, 2), { ...steps[2], then: "nope" }, steps[3]] }), "steps[2].then"],
      ["a cycle", cartRecovery({ steps: [...steps.slice(0, 2), { ...steps[2], then: "w1" }, steps[3]] }), "steps[2].then", "cycle"],
      ["unknown merge tag", cartRecovery({ steps: [steps[0], { ...steps[1], subject: "Back? {{event_resum_url}}" }] }), "steps[1].subject", "unknown merge tag {{event_resum_url}}"],
      ["wait out of range", cartRecovery({ steps: [{ id: "w", type: "wait", duration: "P366D" }] }), "steps[0].duration"],
      ["wait of months", cartRecovery({ steps: [{ id: "w", type: "wait", duration: "P1M" }] }), "steps[0].duration"],
      ["template not registered", cartRecovery({ steps: [{ ...steps[3], template: "no_such_template" }] }), "steps[0].template", "not registered"],
      ["wrong parameter count", cartRecovery({ steps: [{ ...steps[3], params: ["contact.first_name"] }] }), "steps[0].params"],
      ["unknown hotel", cartRecovery({ hotel_ids: [randomUUID()] }), "hotel_ids[0]"],
      ["no steps", cartRecovery({ steps: [] }), "steps"],
      ["bad status", cartRecovery({ status: "paused" }), "status"]
    ]
    for (const [what, body, field, message] of cases) {
      const res = await call("POST", "/api/v1/journeys", body)
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(422)
      expect(res.body.success).toBe(false)
      expect(res.body.error.code).toBe("VALIDATION_ERROR")
      expect(Object.keys(res.body.error.details), what).toContain(field)
      if (message !== undefined) expect(res.body.error.details[field].join(" "), what).toContain(message)
    }
    expect(await count()).toBe(before)
  })

  it("PATCH saves the merged definition as the next version (earlier versions kept); If-Match guards; no change, no version", async () => {
    const { journey_id: id } = await create()
    const patched = await call("PATCH", `/api/v1/journeys/${id}`, { name: "Cart recovery v2", steps: [{ id: "w1", type: "wait", duration: "PT2H" }] }, { headers: { "if-match": "\"v1\"" } })
    expect(patched.status).toBe(200)
    expect(patched.headers.get("etag")).toBe("\"v2\"")
    expect(patched.body.data).toMatchObject({ version: 2, name: "Cart recovery v2", trigger: cartRecovery().trigger, steps: [{ id: "w1", type: "wait", duration: "PT2H" }], warnings: [] })
    const stale = await call("PATCH", `/api/v1/journeys/${id}`, { name: "Lost update" }, { headers: { "if-match": "\"v1\"" } })
    expect(stale.status).toBe(412)
    expect(stale.body.error.code).toBe("PRECONDITION_FAILED")
    const same = await call("PATCH", `/api/v1/journeys/${id}`, { name: "Cart recovery v2" })
    expect(same.body.data.version).toBe(2)
    const invalid = await call("PATCH", `/api/v1/journeys/${id}`, { steps: [{ id: "e", type: "email", category: "utility", subject: "{{nope}}", text: "x" }] })
    expect(invalid.status).toBe(422)
    expect(invalid.body.error.details["steps[0].subject"]).toBeDefined()
    const versions = await sql`SELECT version, definition->>'name' AS name FROM journey_versions WHERE journey_id = ${id} ORDER BY version`
    expect(versions).toEqual([{ version: 1, name: "Cart recovery" }, { version: 2, name: "Cart recovery v2" }])
    const [header] = await sql`SELECT name, version FROM journey_definitions WHERE id = ${id}`
    expect(header).toEqual({ name: "Cart recovery v2", version: 2 })
    // A trigger change moves the header's match columns with it.
    await call("PATCH", `/api/v1/journeys/${id}`, { trigger: { type: "event", event: "booking.created" } })
    expect((await sql`SELECT trigger_event_type FROM journey_definitions WHERE id = ${id}`)[0]!.trigger_event_type).toBe("booking.created")
    expect((await call("PATCH", `/api/v1/journeys/${randomUUID()}`, { name: "x" })).status).toBe(404)
  })

  it("concurrent PATCHes each get their own version, in order; with the same If-Match only one wins", async () => {
    const { journey_id: id } = await create()
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => call("PATCH", `/api/v1/journeys/${id}`, { name: `Edit ${i}` })))
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200))
    expect(answers.map((a) => a.body.data.version).sort((a: number, b: number) => a - b)).toEqual([2, 3, 4, 5, 6, 7])
    const guarded = await Promise.all(Array.from({ length: 4 }, (_, i) =>
      call("PATCH", `/api/v1/journeys/${id}`, { name: `Guarded ${i}` }, { headers: { "if-match": "\"v7\"" } })))
    expect(guarded.map((a) => a.status).sort()).toEqual([200, 412, 412, 412])
    const versions = await sql`SELECT version FROM journey_versions WHERE journey_id = ${id} ORDER BY version`
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
  })

  it("moves draft → active ⇄ paused → archived; repeats answer 200; archived is final (409)", async () => {
    const { journey_id: id } = await create()
    const go = (action: string) => call("POST", `/api/v1/journeys/${id}/${action}`)
    const pauseDraft = await go("pause")
    expect(pauseDraft.status).toBe(409)
    expect(pauseDraft.body.error.code).toBe("JOURNEY_NOT_ACTIVE")
    for (const [action, status] of [["activate", "active"], ["activate", "active"], ["pause", "paused"], ["pause", "paused"], ["activate", "active"], ["archive", "archived"], ["archive", "archived"]] as const) {
      const res = await go(action)
      expect(res.status, `${action}: ${JSON.stringify(res.body)}`).toBe(200)
      expect(res.body.data).toMatchObject({ journey_id: id, status, version: 1 })
    }
    for (const action of ["activate", "pause"]) {
      const res = await go(action)
      expect(res.status).toBe(409)
      expect(res.body.error.code).toBe("JOURNEY_ARCHIVED")
    }
    expect((await call("PATCH", `/api/v1/journeys/${id}`, { name: "Again" })).status).toBe(409)
    expect((await call("POST", `/api/v1/journeys/${randomUUID()}/activate`)).status).toBe(404)
  })

  it("refuses to activate a journey whose template was unregistered since it was saved", async () => {
    const t = await createTenant("journeys-tpl")
    await sql`INSERT INTO channel_whatsapp (tenant_id, sandbox, phone_number_id, access_token_encrypted, app_secret_encrypted)
      VALUES (${t.tenant_id}, false, ${randomUUID()}, '\\x00', '\\x00')`
    await sql`INSERT INTO whatsapp_templates (tenant_id, sandbox, name, language, category, body_parameters) VALUES (${t.tenant_id}, false, 'cart_reminder', 'es', 'marketing', 2)`
    const saved = await call("POST", "/api/v1/journeys", { ...cartRecovery(), steps: [cartRecovery().steps[3]] }, { key: t.live_key })
    expect(saved.status).toBe(201)
    await sql`DELETE FROM whatsapp_templates WHERE tenant_id = ${t.tenant_id}`
    const res = await call("POST", `/api/v1/journeys/${saved.body.data.journey_id}/activate`, undefined, { key: t.live_key })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.error.details)).toEqual(["steps[0].template"])
    expect((await sql`SELECT status FROM journey_definitions WHERE id = ${saved.body.data.journey_id}`)[0]!.status).toBe("draft")
  })

  it("lists newest first with filters and a cursor; bad query parameters are 400 naming them", async () => {
    const t = await createTenant("journeys-list")
    const other = randomUUID()
    const mk = (name: string, event: string, extra: Record<string, unknown> = {}) =>
      call("POST", "/api/v1/journeys", { name, trigger: { type: "event", event }, steps: [{ id: "e", type: "end" }], ...extra }, { key: t.live_key })
    const ids: Array<string> = []
    for (const [name, event, extra] of [["a", "booking.created", {}], ["b", "cart.abandoned", { status: "active" }], ["c", "booking.created", { hotel_ids: [t.hotel_id] }]] as const) {
      ids.push((await mk(name, event, extra)).body.data.journey_id)
    }
    const list = async (query: string) => call("GET", `/api/v1/journeys${query}`, undefined, { key: t.live_key })
    const all = await list("")
    expect(all.body.data.journeys.map((j: { name: string }) => j.name)).toEqual(["c", "b", "a"])
    expect(all.body.data.journeys[0]).toMatchObject({ steps: 1, hotel_ids: [t.hotel_id], status: "draft" })
    expect((await list("?status=active")).body.data.journeys.map((j: { name: string }) => j.name)).toEqual(["b"])
    expect((await list("?trigger_event=booking.created")).body.data.journeys.map((j: { name: string }) => j.name)).toEqual(["c", "a"])
    // A hotel's journeys: those for it and those for every hotel.
    expect((await list(`?hotel_id=${other}`)).body.data.journeys.map((j: { name: string }) => j.name)).toEqual(["b", "a"])
    const seen: Array<string> = []
    let cursor: string | null = ""
    while (cursor !== null) {
      const page: { body: { data: { journeys: Array<{ journey_id: string }>; next_cursor: string | null } } } = await list(`?limit=1${cursor ? `&cursor=${cursor}` : ""}`)
      seen.push(...page.body.data.journeys.map((j) => j.journey_id))
      cursor = page.body.data.next_cursor
    }
    expect(seen).toEqual([...ids].reverse())
    for (const [query, field] of [["?limit=0", "limit"], ["?status=gone", "status"], ["?hotel_id=x", "hotel_id"], ["?cursor=zzz", "cursor"]]) {
      const res = await list(query!)
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.error.details)).toEqual([field])
    }
  })

  it("is confined to the key's tenant and mode, and to the journeys scopes", async () => {
    const { journey_id: id } = await create()
    const other = await createTenant("journeys-other")
    expect((await call("GET", `/api/v1/journeys/${id}`, undefined, { key: other.live_key })).status).toBe(404)
    expect((await call("GET", `/api/v1/journeys/${id}`, undefined, { key: tenant.test_key })).status).toBe(404)
    expect((await call("GET", "/api/v1/journeys", undefined, { key: tenant.test_key })).body.data.journeys).toEqual([])
    const [reader, stranger] = await Promise.all([createKey(tenant.tenant_id, ["journeys:read"]), createKey(tenant.tenant_id, ["guests:read"])])
    expect((await call("GET", `/api/v1/journeys/${id}`, undefined, { key: reader.key })).status).toBe(200)
    const write = await call("POST", `/api/v1/journeys/${id}/archive`, undefined, { key: reader.key })
    expect(write.status).toBe(403)
    expect(write.body.error.details.required_scope).toBe("journeys:write")
    expect((await call("GET", "/api/v1/journeys", undefined, { key: stranger.key })).body.error.details.required_scope).toBe("journeys:read")
  })
})

describe("journey runs (read side)", () => {
  // started_at as text: postgres.js would send a timestamptz parameter at millisecond precision. A waiting run wakes in
  // 2099: the journey engine's timer sweep runs in this platform and would wake (and end) a run due now.
  const insertRun = async (journeyId: string, state: string, startedAt: string, steps: Array<Record<string, unknown>> = []) => {
    const id = randomUUID()
    const ended = ["completed", "stopped", "failed"].includes(state) ? startedAt : null
    await sql`INSERT INTO journey_runs (id, tenant_id, sandbox, journey_id, version, contact_id, scope, state, wake_at, wake_seq, trigger, started_at, ended_at, exit_reason, updated_at)
      VALUES (${id}, ${tenant.tenant_id}, false, ${journeyId}, 1, ${contactId}, ${`event:${id}`}, ${state}, ${state === "waiting" ? "2099-01-01T00:00:00Z" : null}, ${state === "waiting" ? 1 : 0},
        ${sql.json({ event_id: "ev-1", event_name: "cart.abandoned", occurred_at: startedAt, payload: { context: { resume_url: "https://x.example/r" } }, origin: "website", source: null })},
        ${startedAt}::text::timestamptz, ${ended}, ${state === "stopped" ? "manual" : null}, now())`
    let seq = 0
    for (const s of steps) {
      await sql`INSERT INTO journey_run_steps (run_id, seq, tenant_id, step_id, step_type, outcome, reason, message_id, at)
        VALUES (${id}, ${seq++}, ${tenant.tenant_id}, ${s.step_id as string}, ${s.step_type as string}, ${s.outcome as string}, ${(s.reason as string | undefined) ?? null}, ${(s.message_id as string | undefined) ?? null}, ${startedAt})`
    }
    return id
  }
  const message = async (status: string, extra: { skip_reason?: string; error_code?: string } = {}) => {
    const id = randomUUID()
    await sql`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, skip_reason, error_code)
      VALUES (${id}, ${tenant.tenant_id}, false, ${contactId}, 'email', 'outbound', 'marketing', 'journey', ${status}, ${extra.skip_reason ?? null}, ${extra.error_code ?? null})`
    return id
  }

  it("shows a run's steps with what became of each message; lists runs with filters and a cursor", async () => {
    const { journey_id: id } = await create()
    const [delivered, skipped, failed] = await Promise.all([message("delivered"), message("skipped", { skip_reason: "no_email_marketing_consent" }), message("failed", { error_code: "550" })])
    const runId = await insertRun(id, "completed", "2026-11-20T10:00:00.123456Z", [
      { step_id: "w1", step_type: "wait", outcome: "waited" },
      { step_id: "e1", step_type: "email", outcome: "sent", message_id: delivered },
      { step_id: "e2", step_type: "email", outcome: "sent", message_id: skipped },
      { step_id: "e3", step_type: "email", outcome: "sent", message_id: failed },
      { step_id: "e4", step_type: "email", outcome: "skipped", reason: "missing_resume_url" },
      { step_id: "b1", step_type: "branch", outcome: "branched", reason: "end" }
    ])
    const res = await call("GET", `/api/v1/journey-runs/${runId}`)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({
      run_id: runId, journey_id: id, version: 1, contact_id: contactId, state: "completed", ended_at: "2026-11-20T10:00:00.123Z",
      trigger: { event_name: "cart.abandoned", event_id: "ev-1", origin: "website" }
    })
    // The run itself shows the frozen payload (the run inspector); steps logged without merge values show null.
    expect(res.body.data.trigger.payload).toEqual({ context: { resume_url: "https://x.example/r" } })
    expect(res.body.data.steps.map((s: Record<string, unknown>) => s.merge_values)).toEqual([null, null, null, null, null, null])
    expect(res.body.data.steps.map((s: Record<string, unknown>) => [s.step_id, s.outcome, s.reason, s.message_status])).toEqual([
      ["w1", "waited", null, null],
      ["e1", "sent", null, "delivered"],
      ["e2", "skipped", "no_email_marketing_consent", "skipped"],
      ["e3", "failed", "550", "failed"],
      ["e4", "skipped", "missing_resume_url", null],
      ["b1", "branched", "end", null]
    ])
    // Two more runs started in the same millisecond: the cursor keeps microseconds, so paging skips none.
    const waiting = await insertRun(id, "waiting", "2026-11-21T10:00:00.000100Z")
    const stopped = await insertRun(id, "stopped", "2026-11-21T10:00:00.000900Z")
    const runs = async (query: string) => call("GET", `/api/v1/journeys/${id}/runs${query}`)
    const seen: Array<string> = []
    let cursor: string | null = ""
    while (cursor !== null) {
      const page: { body: { data: { runs: Array<{ run_id: string }>; next_cursor: string | null } } } = await runs(`?limit=1${cursor ? `&cursor=${cursor}` : ""}`)
      seen.push(...page.body.data.runs.map((r) => r.run_id))
      cursor = page.body.data.next_cursor
    }
    expect(seen).toEqual([stopped, waiting, runId])
    // A list names each run's trigger without its payload.
    expect((await runs("?limit=1")).body.data.runs[0].trigger).toEqual({ event_name: "cart.abandoned", event_id: "ev-1", origin: "website" })
    expect((await runs("?state=waiting")).body.data.runs).toEqual([expect.objectContaining({ run_id: waiting, state: "waiting", wake_at: expect.any(String) })])
    expect((await runs(`?contact_id=${randomUUID()}`)).body.data.runs).toEqual([])
    expect((await runs("?state=sleeping")).status).toBe(400)
    expect((await call("GET", `/api/v1/journeys/${randomUUID()}/runs`)).status).toBe(404)
  })

  it("stops a waiting run through the journey actor (exit reason manual); a repeat answers the ended run", async () => {
    const { journey_id: id } = await create({
      name: "Spa follow-up", status: "active", trigger: { type: "event", event: "spa.booked" },
      steps: [{ id: "w1", type: "wait", duration: "PT1H" }, { id: "e1", type: "email", category: "utility", subject: "Enjoy", text: "x" }]
    })
    const event = await post(platform.baseUrl, "/api/v1/events", tenant.live_key, { event_type: "spa.booked", payload: {}, contact_id: contactId })
    expect(event.body.data.matching_journeys).toBe(1)
    const waiting = await eventually(async () => {
      const r = await call("GET", `/api/v1/journeys/${id}/runs?state=waiting`)
      return r.body.data.runs[0] as { run_id: string } | undefined
    })
    const stopped = await call("POST", `/api/v1/journey-runs/${waiting.run_id}/stop`)
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200)
    expect(stopped.body.data).toMatchObject({
      run_id: waiting.run_id, state: "stopped", exit_reason: "manual", ended_at: expect.any(String),
      trigger: { event_name: "spa.booked", origin: "core" }, steps: [expect.objectContaining({ step_id: "w1", outcome: "waited" })]
    })
    const again = await call("POST", `/api/v1/journey-runs/${waiting.run_id}/stop`)
    expect(again.status).toBe(200)
    expect(again.body.data).toEqual(stopped.body.data)
  })

  it("404 for a run of no journey of the caller's tenant and mode; stopping an unknown run is 404", async () => {
    const { journey_id: id } = await create()
    const runId = await insertRun(id, "completed", "2026-11-20T10:00:00Z")
    const other = await createTenant("journeys-runs-other")
    expect((await call("GET", `/api/v1/journey-runs/${runId}`, undefined, { key: other.live_key })).status).toBe(404)
    expect((await call("GET", `/api/v1/journey-runs/${runId}`, undefined, { key: tenant.test_key })).status).toBe(404)
    expect((await call("GET", "/api/v1/journey-runs/not-a-uuid")).status).toBe(404)
    const stop = await call("POST", `/api/v1/journey-runs/${randomUUID()}/stop`)
    expect(stop.status).toBe(404)
    expect(stop.body.error.details).toEqual({ run_id: ["not found"] })
    expect((await call("POST", `/api/v1/journey-runs/${runId}/stop`, undefined, { key: other.live_key })).status).toBe(404)
  })
})
