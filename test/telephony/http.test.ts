import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { e164, phone, reservation } from "../support/fixtures.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createCtiIntegration, createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
let token: string
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("cti")
  tenant = await createTenant("cti")
  token = (await createCtiIntegration(tenant.tenant_id, "aircall")).token
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

let seq = 0
const callId = () => `call-${Date.now()}-${seq++}`
const cti = (body: unknown, path = "/api/webhooks/cti", t = token) => post(platform.baseUrl, path, t, body)
const callRow = async (id: string) => (await sql`SELECT * FROM calls WHERE tenant_id = ${tenant.tenant_id} AND call_id = ${id}`)[0]
const full = (id: string, n: number, extra: Record<string, unknown> = {}) => ({
  event: "call_completed", call_id: id, direction: "inbound", from: phone(n), to: "+34910000000",
  started_at: "2026-11-20T10:00:00Z", answered_at: "2026-11-20T10:00:05Z", ended_at: "2026-11-20T10:04:05Z", ...extra
})

describe("telephony authentication", () => {
  it("answers 401 for a bad token and 403 when the path names another provider; both paths are equivalent", async () => {
    expect((await cti({ event_type: "call_missed", call_id: "x" }, "/api/webhooks/cti", "svccti_" + "A".repeat(32))).status).toBe(401)
    expect((await cti({ event_type: "call_missed", call_id: "x" }, "/api/webhooks/cti", tenant.live_key)).status).toBe(401)
    const wrong = await cti({ event_type: "call_missed", call_id: callId() }, "/api/webhooks/cti/twilio")
    expect(wrong.status).toBe(403)
    const id = callId()
    expect((await cti({ event_type: "call_missed", call_id: id }, "/api/webhooks/cti/aircall")).status).toBe(201)
    expect((await cti({ event_type: "call_hangup", call_id: id, duration: 3 })).status).toBe(200)
  })
})

describe("call events", () => {
  it("accepts camelCase names nested under data, and keeps the hangup duration", async () => {
    const id = callId()
    const ring = await cti({ data: { eventType: "call_ringing", callId: id, fromNumber: phone(1), toNumber: "+34910000000", direction: "inbound", userId: 7 } })
    expect(ring.status).toBe(201)
    await cti({ event_type: "call_answered", call_id: id, timestamp: "2026-11-20T10:00:05+00:00" })
    await cti({ eventType: "call_hangup", callId: id, duration: 42 })
    const row = await callRow(id)
    expect(row).toMatchObject({ direction: "inbound", from_number: e164(1), status: "ended", duration_seconds: 42, answered: true })
    const events = await sql`SELECT event_type FROM call_events WHERE call_id = ${id} ORDER BY id`
    expect(events.map((e) => e.event_type)).toEqual(["call_ringing", "call_answered", "call_hangup"])
  })

  it("answers call_ringing with the screen pop of the guest's contact: name, language, last and next stay", async () => {
    const p = phone(2)
    await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
      check_in: "2025-06-01", check_out: "2025-06-05", guests: [{ first_name: "Lola", last_name: "Flores", phone: p, language: "es" }]
    }))
    const next = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
      check_in: "2030-01-10", check_out: "2030-01-12", guests: [{ first_name: "Lola", phone: p }]
    }))
    const ring = await cti({ event_type: "call_ringing", call_id: callId(), from_number: p, to_number: "+34910000000", direction: "inbound" })
    expect(ring.body.data.screen_pop).toMatchObject({
      matched: true,
      contact: { first_name: "Lola", last_name: "Flores", language: "es", tier: null, last_stay: { check_in: "2025-06-01" }, next_stay: { reservation_id: next.body.data.reservation_id } }
    })
    const unknown = await cti({ event_type: "call_ringing", call_id: callId(), from_number: phone(3), direction: "inbound" })
    expect(unknown.body.data.screen_pop).toEqual({ matched: false, contact: null })
    const [created] = await sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${e164(3)}`
    expect(created!.n).toBe(0) // streamed events link known guests; only completed records create contacts
  })

  it("the screen pop carries the loyalty tier of the caller's email (null for a non-member)", async () => {
    const p = phone(4)
    const email = `tier.${Date.now()}@gmail.com`
    const guest = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: p, email, first_name: "Tere", last_name: "Vidal" })
    expect(guest.status, JSON.stringify(guest.body)).toBeLessThan(300)
    const ring = async () => (await cti({ event_type: "call_ringing", call_id: callId(), from_number: p, direction: "inbound" })).body.data.screen_pop.contact
    expect((await ring()).tier).toBeNull()
    const put = (path: string, body: unknown) => request(platform.baseUrl, "PUT", path, { key: tenant.live_key, body })
    expect((await put("/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, point_value: 0.01 })).status).toBe(200)
    expect((await put("/api/v1/loyalty/tiers", [
      { tier_slug: "blue", tier_name: "Blue", threshold: 0, basis: "qualifying_points" },
      { tier_slug: "gold", tier_name: "Gold", threshold: 1000, basis: "qualifying_points" }
    ])).status).toBe(200)
    const member = await post(platform.baseUrl, "/api/v1/loyalty/enroll", tenant.live_key, { email: email.toUpperCase() })
    expect((await ring()).tier).toEqual({ slug: "blue", name: "Blue" })
    await post(platform.baseUrl, "/api/v1/loyalty/points", tenant.live_key, {
      member_id: member.body.data.member_id, amount: 150, currency: "EUR", nights: 1, external_reference_id: `tier-${Date.now()}`
    })
    expect((await ring()).tier).toEqual({ slug: "gold", name: "Gold" })
  })

  it("refuses an unknown event type, a missing call_id, a malformed number or timestamp, storing nothing", async () => {
    const before = (await sql`SELECT count(*)::int AS n FROM call_events WHERE tenant_id = ${tenant.tenant_id}`)[0]!.n
    const cases: Array<[unknown, string]> = [
      [{ event_type: "call_exploded", call_id: "x" }, "event_type"],
      [{ event_type: "call_missed" }, "call_id"],
      [{ call_id: "x" }, "event_type"],
      [{ event_type: "call_ringing", call_id: "x", from_number: "12", direction: "inbound" }, "from_number"],
      [{ event_type: "call_hangup", call_id: "x", timestamp: "yesterday" }, "timestamp"],
      [{ event: "call_completed", call_id: "x", direction: "inbound", from: "not a phone", started_at: "2026-11-20T10:00:00Z", ended_at: "2026-11-20T10:01:00Z" }, "from"]
    ]
    for (const [body, field] of cases) {
      const res = await cti(body)
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.error.details)).toContain(field)
    }
    expect((await sql`SELECT count(*)::int AS n FROM call_events WHERE tenant_id = ${tenant.tenant_id}`)[0]!.n).toBe(before)
  })
})

describe("completed calls", () => {
  it("stores a full record: guest contact resolved or created, duration derived, outcome mapped, transcript text split", async () => {
    const id = callId()
    const res = await cti(full(id, 10, {
      outcome: "completed", recording_url: "https://rec.example/a b?x=1", agent: { id: 12, email: "agent@hotel.com" },
      transcript_text: "Guest: Hello, I'd like a room\nAgent: Sure, which dates?\nfrom the 3rd\nGuest: the 3rd to the 5th",
      summary: "Room enquiry", language: "en", metadata: { crm: "a" }
    }))
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ call_id: id, kind: "full_record", status: "completed", is_new_contact: true, contact_id: expect.any(String) })
    const row = await callRow(id)
    expect(row).toMatchObject({
      contact_id: res.body.data.contact_id, answered: true, duration_seconds: 245, outcome: "completed",
      recording_url: "https://rec.example/a b?x=1", agent: { id: 12, email: "agent@hotel.com" }, summary: "Room enquiry"
    })
    expect(row!.transcript).toEqual([
      { speaker: "guest", text: "Hello, I'd like a room" },
      { speaker: "agent", text: "Sure, which dates?\nfrom the 3rd" },
      { speaker: "guest", text: "the 3rd to the 5th" }
    ])
    const [contact] = await sql`SELECT phone FROM contacts WHERE id = ${res.body.data.contact_id}`
    expect(contact!.phone).toBe(e164(10))
  })

  it("marks a call unanswered without answered_at and stores no_answer and voicemail as missed", async () => {
    for (const outcome of ["no_answer", "voicemail"]) {
      const id = callId()
      await cti(full(id, 11, { answered_at: null, outcome }))
      expect(await callRow(id)).toMatchObject({ answered: false, outcome: "missed", outcome_raw: outcome, status: "missed" })
    }
  })

  it("drops a full record without started_at or ended_at with a clear 422; a patch needs neither", async () => {
    const id = callId()
    const res = await cti({ event: "call_completed", call_id: id, direction: "outbound", to: phone(12), started_at: "2026-11-20T10:00:00Z" })
    expect(res.status).toBe(422)
    expect(res.body.error).toMatchObject({ code: "CALL_RECORD_INCOMPLETE", details: { ended_at: expect.any(Array) } })
    expect(await callRow(id)).toBeUndefined()
    expect((await cti({ event: "call_completed", call_id: id, summary: "patch first" })).status).toBe(201)
  })

  it("keeps the transcript when a later patch omits it, merges metadata keeping stored keys, and never erases fields", async () => {
    const id = callId()
    await cti(full(id, 13, { transcript: [{ speaker: "guest", text: "hi" }, { speaker: "agent", text: "hello", offset_ms: 900 }], summary: "s1", metadata: { a: 1, b: 1 } }))
    await cti({ event: "call_completed", call_id: id, summary: "s2", metadata: { b: 2, c: 2 } })
    await cti({ event: "call_completed", call_id: id, recording_url: "https://r/1" })
    const row = await callRow(id)
    expect(row).toMatchObject({ summary: "s2", recording_url: "https://r/1", metadata: { a: 1, b: 1, c: 2 }, duration_seconds: 245, direction: "inbound" })
    expect(row!.transcript).toEqual([{ speaker: "guest", text: "hi" }, { speaker: "agent", text: "hello", offset_ms: 900 }])
  })

  it("emits call.transcript_received once, across three re-sends of the transcript", async () => {
    const id = callId()
    await cti({ event: "call_completed", call_id: id, summary: "no transcript yet" })
    for (let i = 0; i < 3; i++) await cti(full(id, 14, { transcript_text: `Guest: take ${i}\nAgent: ok` }))
    const row = await callRow(id)
    const commands = (await outboxMessages(platform.config.namespace, tenant.tenant_id)).filter((m) => m.subject === `${platform.config.namespace}.cmd.call.transcript_received`)
    const forCall = commands.map((c) => c.payload as { data: { call_record_id: string } }).filter((p) => p.data.call_record_id === row!.id)
    expect(forCall.length).toBe(1)
  })

  it("truncates an over-long transcript and says so, instead of refusing it", async () => {
    const id = callId()
    const res = await cti(full(id, 15, { transcript: Array.from({ length: 600 }, (_, i) => ({ speaker: i % 2 ? "agent" : "guest", text: "x".repeat(500) })) }))
    expect(res.status).toBe(201)
    expect(res.body.data.warnings).toContainEqual(expect.objectContaining({ field: "transcript", code: "truncated" }))
    const row = await callRow(id)
    expect((row!.transcript as Array<unknown>).length).toBe(400)
    expect(row!.transcript_truncated).toBe(true)
  })

  it("fills only blank contact fields from the caller, and never takes a carrier label for a name", async () => {
    const p = phone(16)
    const known = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: p, first_name: "Marta", last_name: "Ruiz" })
    await cti(full(callId(), 16, { caller: { name: "WIRELESS CALLER", email: "marta@gmail.com" } }))
    await cti(full(callId(), 16, { caller: { first_name: "Other", last_name: "Name" } }))
    const [c] = await sql`SELECT first_name, last_name, email FROM contacts WHERE id = ${known.body.data.contact_id}`
    expect(c).toEqual({ first_name: "Marta", last_name: "Ruiz", email: "marta@gmail.com" })

    const label = await cti(full(callId(), 17, { caller: { name: "Unknown" } }))
    expect(label.body.data.warnings).toContainEqual(expect.objectContaining({ field: "caller", code: "not_a_name" }))
    const [fresh] = await sql`SELECT first_name FROM contacts WHERE id = ${label.body.data.contact_id}`
    expect(fresh!.first_name).toBeNull()
    await cti(full(callId(), 17, { caller: { name: "Juan Pérez", email: "marta@gmail.com" } }))
    const [named] = await sql`SELECT first_name, last_name, email FROM contacts WHERE id = ${label.body.data.contact_id}`
    expect(named).toEqual({ first_name: "Juan", last_name: "Pérez", email: null }) // the email belongs to Marta
  })

  it("1,000 messages for 100 calls sent concurrently end with each field equal to the last write in send order", async () => {
    const ids = Array.from({ length: 100 }, () => callId())
    await Promise.all(ids.map(async (id, k) => {
      for (let i = 0; i < 10; i++) {
        const body = i === 0
          ? full(id, 200 + k, { summary: "v0", duration_seconds: 0, language: "l0" })
          : { event: "call_completed", call_id: id, summary: `v${i}`, duration_seconds: i, ...(i % 3 === 0 ? { language: `l${i}` } : {}) }
        const res = await cti(body)
        expect(res.status).toBeLessThan(300)
      }
    }))
    const rows = await sql`SELECT call_id, summary, duration_seconds, language, version FROM calls WHERE call_id = ANY(${ids})`
    expect(rows.length).toBe(100)
    for (const r of rows) expect(r).toMatchObject({ summary: "v9", duration_seconds: 9, language: "l9", version: 10 })
  }, 120_000)
})

describe("contact call history and click-to-call", () => {
  it("lists a contact's calls newest first with a cursor, and 404 for an unknown contact", async () => {
    const n = 30
    const ids = Array.from({ length: 5 }, () => callId())
    let contactId = ""
    for (const [i, id] of ids.entries()) {
      const res = await cti(full(id, n, { started_at: `2026-11-0${i + 1}T10:00:00Z`, ended_at: `2026-11-0${i + 1}T10:05:00Z` }))
      contactId = res.body.data.contact_id
    }
    const page1 = await request(platform.baseUrl, "GET", `/api/contacts/${contactId}/calls?limit=2`, { key: tenant.live_key })
    expect(page1.body.data.calls.map((c: { call_id: string }) => c.call_id)).toEqual([ids[4], ids[3]])
    const page2 = await request(platform.baseUrl, "GET", `/api/contacts/${contactId}/calls?limit=2&cursor=${page1.body.data.next_cursor}`, { key: tenant.live_key })
    const page3 = await request(platform.baseUrl, "GET", `/api/contacts/${contactId}/calls?limit=2&cursor=${page2.body.data.next_cursor}`, { key: tenant.live_key })
    expect([...page2.body.data.calls, ...page3.body.data.calls].map((c: { call_id: string }) => c.call_id)).toEqual([ids[2], ids[1], ids[0]])
    expect(page3.body.data.next_cursor).toBeNull()
    expect((await request(platform.baseUrl, "GET", `/api/contacts/00000000-0000-4000-8000-000000000000/calls`, { key: tenant.live_key })).status).toBe(404)
    expect((await request(platform.baseUrl, "GET", `/api/contacts/${contactId}/calls?cursor=garbage`, { key: tenant.live_key })).status).toBe(400)
  })

  it("records a click-to-call request and emits call.dial_requested; 422 without an integration", async () => {
    const g = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: phone(31), first_name: "Dial", last_name: "Me" })
    const res = await post(platform.baseUrl, `/api/contacts/${g.body.data.contact_id}/call`, tenant.live_key, { agent: { id: "a1", extension: "201" } })
    expect(res.status).toBe(202)
    expect(res.body.data).toMatchObject({ status: "requested", to: e164(31), provider: "aircall" })
    const out = (await outboxMessages(platform.config.namespace, tenant.tenant_id)).find((m) => m.id === res.body.data.dial_request_id)
    expect(out?.subject).toBe(`${platform.config.namespace}.cmd.call.dial_requested`)
    const other = await createTenant("cti-none")
    const g2 = await post(platform.baseUrl, "/api/v1/guests", other.live_key, { phone: phone(32), first_name: "No", last_name: "Cti" })
    const none = await post(platform.baseUrl, `/api/contacts/${g2.body.data.contact_id}/call`, other.live_key, {})
    expect(none.status).toBe(422)
    expect(none.body.error.code).toBe("NO_TELEPHONY_INTEGRATION")
  })
})

describe("call detail: GET /api/calls/{call_record_id}", () => {
  const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
  const read = (id: string, key: string | null = tenant.live_key) =>
    request(platform.baseUrl, "GET", `/api/calls/${id}`, key === null ? {} : { key })
  const notFound = (id: string) => ({
    success: false, error: { code: "NOT_FOUND", message: `No call record with call_record_id ${JSON.stringify(id)}`, details: { call_record_id: ["not found"] }, request_id: expect.stringMatching(/^req_/) }
  })

  it("reads a completed call back whole: transcript turns, summary, language, recording, agent, outcome, metadata", async () => {
    const id = callId()
    const sent = await cti(full(id, 40, {
      outcome: "completed", recording_url: "https://rec.example/40", agent: { id: "ag-7", email: "agent@hotel.com" },
      caller: { name: "Nuria Vidal" }, summary: "Late check-in asked", language: "ca", metadata: { crm_ticket: "T-40", tags: ["vip"] },
      transcript: [{ speaker: "guest", text: "Bon dia", offset_ms: 0 }, { speaker: "agent", text: "Good morning", offset_ms: 1250 }, { speaker: "guest", text: "I arrive late" }]
    }))
    expect(sent.status).toBe(201)
    const res = await read(sent.body.data.call_record_id)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      success: true,
      data: {
        call_record_id: sent.body.data.call_record_id, provider: "aircall", call_id: id, direction: "inbound",
        from_number: e164(40), to_number: "+34910000000", contact_id: sent.body.data.contact_id,
        status: "completed", answered: true, outcome: "completed", outcome_raw: "completed",
        started_at: "2026-11-20T10:00:00.000Z", answered_at: "2026-11-20T10:00:05.000Z", ended_at: "2026-11-20T10:04:05.000Z",
        duration_seconds: 245, agent: { id: "ag-7", email: "agent@hotel.com" }, caller: { first_name: "Nuria", last_name: "Vidal" },
        recording_url: "https://rec.example/40",
        transcript: [
          { speaker: "guest", text: "Bon dia", offset_ms: 0 },
          { speaker: "agent", text: "Good morning", offset_ms: 1250 },
          { speaker: "guest", text: "I arrive late", offset_ms: null }
        ],
        transcript_truncated: false, transcript_received_at: expect.stringMatching(ISO),
        summary: "Late check-in asked", language: "ca", metadata: { crm_ticket: "T-40", tags: ["vip"] },
        created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO)
      }
    })
    // The same record the contact's call list points at.
    const list = await request(platform.baseUrl, "GET", `/api/contacts/${sent.body.data.contact_id}/calls`, { key: tenant.live_key })
    expect(list.body.data.calls.map((c: { call_record_id: string }) => c.call_record_id)).toContain(sent.body.data.call_record_id)
  })

  it("answers a call known only from streamed events with nulls, and says when a transcript was truncated", async () => {
    const ring = await cti({ event_type: "call_ringing", call_id: callId(), from_number: phone(41), to_number: "+34910000000", direction: "inbound", timestamp: "2026-11-21T09:00:00+01:00" })
    const ringing = await read(ring.body.data.call_record_id)
    expect(ringing.status).toBe(200)
    expect(ringing.body.data).toMatchObject({
      status: "ringing", started_at: "2026-11-21T08:00:00.000Z", contact_id: null, transcript: null, transcript_truncated: false,
      transcript_received_at: null, summary: null, agent: null, caller: null, duration_seconds: null, metadata: {}
    })
    const long = await cti(full(callId(), 42, { transcript_text: Array.from({ length: 600 }, (_, i) => `${i % 2 ? "Agent" : "Guest"}: line ${i}`).join("\n") }))
    const cut = await read(long.body.data.call_record_id)
    expect(cut.body.data.transcript_truncated).toBe(true)
    expect(cut.body.data.transcript).toHaveLength(500)
    expect(cut.body.data.transcript[0]).toEqual({ speaker: "guest", text: "line 0", offset_ms: null })
  })

  it("answers 404 in the core shape for an unknown, malformed, other tenant's or sandbox-invisible id", async () => {
    const sent = await cti(full(callId(), 43))
    const id = sent.body.data.call_record_id as string
    for (const unknown of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "1", "00000000-0000-4000-8000-00000000000Z"]) {
      const res = await read(unknown)
      expect(res.status, unknown).toBe(404)
      expect(res.body).toEqual(notFound(unknown))
    }
    const other = await createTenant("cti-other")
    expect((await read(id, other.live_key)).body).toEqual(notFound(id))
    // Calls are live data: the same tenant's sandbox key sees none.
    expect((await read(id, tenant.test_key)).body).toEqual(notFound(id))
    expect((await read(id)).status).toBe(200)
  })

  it("needs an API key with guests:read: 401 without one or with a CTI token, 403 without the scope", async () => {
    const sent = await cti(full(callId(), 44))
    const id = sent.body.data.call_record_id as string
    const none = await read(id, null)
    expect(none.status).toBe(401)
    expect(none.body.error.code).toBe("UNAUTHORIZED")
    expect((await read(id, token)).status).toBe(401)
    const writeOnly = await createKey(tenant.tenant_id, ["guests:write"])
    const forbidden = await read(id, writeOnly.key)
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.error.code).toBe("FORBIDDEN")
    const reader = await createKey(tenant.tenant_id, ["guests:read"])
    expect((await read(id, reader.key)).status).toBe(200)
  })

  it("is in /openapi.json with its scope, its declared body and its 404", async () => {
    const doc = (await request(platform.baseUrl, "GET", "/openapi.json")).body
    const op = doc.paths["/api/calls/{call_record_id}"]?.get
    expect(op).toBeDefined()
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "404"]))
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: "call_record_id", in: "path" }))
    const body = JSON.stringify(op.responses["200"]) + JSON.stringify(doc.components?.schemas ?? {})
    for (const field of ["transcript_truncated", "offset_ms", "recording_url", "outcome_raw", "duration_seconds"]) expect(body).toContain(field)
  })
})

describe("telephony rate limit", () => {
  it("allows 100 requests per minute per tenant by default, then 429 with Retry-After", async () => {
    const limited = await startPlatform("cti-limit", { overrides: { telephonyRateLimitPerMinute: 100 } })
    try {
      const t = await createTenant("cti-limit")
      const tok = (await createCtiIntegration(t.tenant_id, "aircall")).token
      const statuses: Array<number> = []
      for (let i = 0; i < 101; i++) {
        statuses.push((await post(limited.baseUrl, "/api/webhooks/cti", tok, { event_type: "call_missed", call_id: `rl-${i}` })).status)
      }
      expect(statuses.slice(0, 100).every((s) => s === 201)).toBe(true)
      const last = await post(limited.baseUrl, "/api/webhooks/cti", tok, { event_type: "call_missed", call_id: "rl-x" })
      expect(statuses[100] === 429 || last.status === 429).toBe(true)
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    } finally {
      await limited.stop()
    }
  }, 60_000)
})
