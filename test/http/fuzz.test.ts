import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import fc from "fast-check"

import { ingressStream, ingressWildcard } from "../../streams/subjects.ts"
import { e164, uniqueId } from "../support/fixtures.ts"
import type { JsonSchema } from "../support/jsonSchema.ts"
import { arbitraryOf, bodyText, type Hints, type Mutation, MUTATIONS, mutate, placesFor, PROTOTYPE_KEYS, urlEncode } from "../support/openapiArbitrary.ts"
import {
  createCtiIntegration, createKey, createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant
} from "../support/platform.ts"
import { memberAccessToken, transferToken } from "../oidc/support.ts"
import { Envelopes } from "../../streams/topics.ts"

/**
 * The API fuzzed as an attacker would, from its own OpenAPI document (GET /openapi.json): for every documented route
 * (a family added later joins by being in the document), bodies and parameters generated from its schemas, with
 * realistic values by field name so many requests get past the first check, then one of issue 18's classes applied
 * at a random place (NUL and unpaired surrogates in strings and keys, out-of-range numbers, JSON nested 5,000 deep,
 * thousands of keys, wrong types, unknown keys, a body over every limit, keys and query names that are
 * Object.prototype's members or pollution payloads). Checked for each request:
 * - the answer is < 500;
 * - a request refused at the edge (400, 401, 403, 413, 415) published nothing on the ingress stream;
 * - no request ever produced a dead letter;
 * - Object.prototype was never written (the platform runs in this process);
 * and, at the end, /readyz is healthy. FUZZ_RUNS sets the random requests per route (default 14). To replay a failure,
 * FUZZ_ROUTE="POST /api/v1/..." keeps that route only and FUZZ_SEED gives fast-check the seed its report printed.
 */

// Webhook subscriptions may target loopback (https://127.0.0.1:1, where nothing listens): creations get accepted.
process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
// Every sign-in of the run comes from 127.0.0.1 and test files share the rate counters: the per-IP limit would bind across files.
process.env.GEP_SSO_CODES_PER_IP_PER_MINUTE = "100000"
process.env.GEP_STAFF_CODES_PER_IP_PER_MINUTE = "100000"

const RUNS = Number(process.env.FUZZ_RUNS ?? 14)
const ONLY_ROUTE = process.env.FUZZ_ROUTE
const SEED = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }
/**
 * Places of the sweep per route and mutation class, at most: every class reaches every route (a cap of 80 per route
 * spent it all on the first classes, NUL and huge numbers, in a route with many fields), and the sweep costs CI half.
 */
const SWEEP_PER_CLASS = 8
// A 404 may be an actor's answer (an unknown B2B account is found out by its actor), a 422 too: not edge-only.
const EDGE_REFUSALS = new Set([400, 401, 403, 413, 415])
const METHODS = ["get", "post", "put", "patch", "delete"]

interface Operation {
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required?: boolean; readonly schema: JsonSchema }>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> }
}
interface Doc { readonly paths: Record<string, Record<string, Operation>> }

let platform: RunningPlatform
let tenant: TestTenant
let doc: Doc
let key: string
let ctiToken: string
/** A core key of another tenant whose newsletter widget is on (and email channel set): the newsletter routes get past "disabled". */
let newsletterKey: string
let contactId: string
let webhookId: string
/** A stored reservation (our id) and its booking event: the reservation and event reads get past 404. */
let reservationId: string
let eventId: string
/** A hotel of the tenant the fuzz may change (PATCH /api/v1/hotels/{hotel_id}); the tenant's own hotel stays as it is. */
let fuzzHotelId: string
/** Loyalty SSO: a member's access token, its club client and a transfer token (the /api/loyalty/me and /club routes). */
let sso: { access_token: string; client: { client_id: string; client_secret: string }; transfer: string }
/** A website source of the tenant (not signing, a high limit): its server key and webhook token. */
let webSource: { server_key: string; webhook_token: string }
let nc: NatsConnection
let jsm: JetStreamManager
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("fuzz")
  tenant = await createTenant("fuzz")
  ;[key, ctiToken] = await Promise.all([
    // keys:manage and staff:manage besides *, which does not grant them: the key, telephony integration and staff routes are fuzzed too.
    createKey(tenant.tenant_id, ["*", "keys:manage", "privacy:write", "staff:manage"], { rate: 10_000_000 }).then((k) => k.key),
    createCtiIntegration(tenant.tenant_id, "aircall").then((i) => i.token)
  ])
  const guest = await request(platform.baseUrl, "POST", "/api/v1/guests", { key, body: { phone: e164(4_242), first_name: "Fuzz", last_name: "Target" } })
  contactId = guest.body.data.contact_id
  const booked = await request(platform.baseUrl, "POST", "/api/v1/reservations", { key, body: {
    reservation_id: uniqueId("fz"), hotel_id: tenant.hotel_id, check_in: "2026-12-01", check_out: "2026-12-04", guests: [{ first_name: "Fuzz", phone: e164(4_242) }]
  } })
  reservationId = booked.body.data.reservation_id
  eventId = booked.body.data.event_id
  const hook = await request(platform.baseUrl, "POST", "/api/v1/webhooks", { key, body: { url: "https://127.0.0.1:1/fuzz", event_types: ["broadcast.completed"], enabled: false } })
  webhookId = hook.body.data.id
  fuzzHotelId = (await request(platform.baseUrl, "POST", "/api/v1/hotels", { key, body: { code: "FUZZ-H", name: "Fuzz hotel", timezone: "UTC" } })).body.data.hotel_id
  // Visitor events reach the visitor actor only while tracking is on.
  await request(platform.baseUrl, "PATCH", "/api/v1/cdp/settings", { key, body: { visitor_tracking: true } })
  const member = await memberAccessToken(platform.baseUrl, key, sql)
  sso = { ...member, transfer: await transferToken(platform.baseUrl, member.access_token, member.client) }
  webSource = (await request(platform.baseUrl, "POST", "/api/v1/website-sources", {
    key, body: { name: "Fuzz site", allowed_origins: ["https://fuzz.hotel-guests.net"], rate_limit_per_minute: 100_000 }
  })).body
  const newsletter = await createTenant("fuzz-nl")
  newsletterKey = newsletter.live_key
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${newsletter.tenant_id}, false, 'news@hotelexample.com')`
  await request(platform.baseUrl, "PATCH", "/api/v1/newsletter/config", { key: newsletterKey, body: { enabled: true, allowed_origins: ["https://www.hotel.example"] } })
  doc = (await request(platform.baseUrl, "GET", "/openapi.json")).body as Doc
  nc = await connect({ servers: platform.config.natsUrl })
  jsm = await jetstreamManager(nc)
  ownTenants.add(tenant.tenant_id).add(newsletter.tenant_id)
  nc.subscribe(ingressWildcard(platform.config.namespace), {
    callback: (_, msg) => {
      const e = Envelopes.decode(msg.data)
      if (ownTenants.has(e.tenant_id)) published.push({ actor: e.actor, type: e.type, key: e.key })
    }
  })
}, 60_000)
afterAll(async () => {
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
  await nc?.close()
  await platform?.stop()
  await sql.end()
})

/** Which credential a route takes, by path prefix; the API key otherwise. A family with a credential of its own adds a line. */
const credentialFor = (path: string) =>
  path.startsWith("/api/webhooks/cti") ? ctiToken
  : path.startsWith("/api/v1/website-events") ? webSource.server_key
  : path.startsWith("/api/v1/newsletter") ? newsletterKey
  : path.startsWith("/api/loyalty/me/") ? sso.access_token
  : path.startsWith("/api/loyalty/club/") ? sso.transfer
  : key
/** The club routes take the client's credentials besides the transfer token. */
const headersFor = (path: string): Record<string, string> =>
  path.startsWith("/api/loyalty/club/") ? { "x-client-id": sso.client.client_id, "x-client-secret": sso.client.client_secret } : {}

const phones = fc.integer({ min: 1, max: 80_000_000 }).map(e164)
/** Mostly valid, sometimes not: a fuzz that never gets past the first check never reaches the actors. */
const mostly = <A>(good: ReadonlyArray<A>, bad: ReadonlyArray<A>) =>
  fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 9 }, { arbitrary: fc.constantFrom(...bad), weight: 1 })
const dates = mostly(["2026-12-01", "2026-12-03", "2026-12-05"], ["2026-02-30", "1899-12-31"])
const instants = mostly(["2026-11-20T10:00:00Z", "2026-11-20T10:04:05+02:00"], ["2026-11-20T10:00:00"])
/** The id a route's `{id}` takes: of a webhook subscription or of a contact. */
const idFor = (path: string) =>
  path.startsWith("/api/v1/webhooks/") ? webhookId : path.startsWith("/api/v1/reservations/") ? reservationId
    : path.startsWith("/api/v1/hotels/") ? fuzzHotelId : contactId

/** A telephony provider's body (free-form in the document: its shape is read by the CTI parser). */
const ctiBody = fc.oneof(
  fc.record({
    event_type: fc.constantFrom("call_ringing", "call_answered", "call_hangup", "call_missed", "record_available"),
    call_id: fc.constantFrom("fz-call-1", "fz-call-2", "fz-call-3"), from_number: phones, to_number: phones,
    direction: fc.constantFrom("inbound", "outbound"), duration: fc.integer({ min: 0, max: 4_000 }), timestamp: instants
  }, { requiredKeys: ["event_type", "call_id"] }),
  fc.record({
    event: fc.constant("call_completed"), call_id: fc.constantFrom("fz-call-4", "fz-call-5"), direction: fc.constantFrom("inbound", "outbound"),
    from: phones, to: phones, started_at: fc.constant("2026-11-20T10:00:00Z"), ended_at: fc.constant("2026-11-20T10:04:05Z"),
    summary: fc.string(), metadata: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    transcript: fc.array(fc.record({ speaker: fc.constantFrom("guest", "agent"), text: fc.string(), offset_ms: fc.nat(60_000) }), { maxLength: 3 })
  }, { requiredKeys: ["event", "call_id"] })
)

const hints = (path: string): Hints => ({
  ...(path.startsWith("/api/webhooks/cti") ? { "": ctiBody } : {}),
  hotel_code: fc.constant(tenant.hotel_code), hotel_id: fc.constant(path.startsWith("/api/v1/hotels/") ? fuzzHotelId : tenant.hotel_id),
  hotel_name: fc.constant(tenant.hotel_name),
  // Hotels, keys and telephony integrations: new codes mostly (a taken one is 409), real time zones and countries mostly;
  // random key and integration ids, so the fuzz never revokes its own credentials.
  ...(path.startsWith("/api/v1/hotels") ? {
    code: mostly([null], ["FUZZ-H"]).map((v) => v ?? uniqueId("FZH")), name: fc.constant(null).map(() => uniqueId("Fuzz")),
    timezone: mostly(["Europe/Madrid", "UTC", "America/Argentina/Buenos_Aires"], ["Mars/Olympus", "+01:00"]),
    country: mostly(["ES", "PT"], ["XX"]), default_language: mostly(["es", "pt-BR"], ["??"])
  } : {}),
  key_id: fc.uuid(), integration_id: fc.uuid(),
  ...(path.startsWith("/api/v1/keys") ? { scopes: mostly<unknown>([["guests:read"], ["*", "keys:manage"]], [["guests:delete"]]) } : {}),
  contact_id: fc.constant(contactId),
  id: fc.constantFrom(idFor(path), "00000000-0000-4000-8000-000000000000"),
  call_record_id: fc.uuid(), provider: fc.constant("aircall"), delivery_id: fc.uuid(),
  event_id: fc.constantFrom(eventId, "00000000-0000-4000-8000-000000000000"),
  check_in_from: dates, check_in_to: dates, updated_since: instants, since: instants,
  // A webhook replay's window: instants of the last 14 days (mostly accepted; until before since is refused).
  ...(path.endsWith("/replay") ? { since: instants, until: instants } : {}),
  // A source webhook's token (the credential is in the path), and the names website events take.
  token: fc.constantFrom(webSource.webhook_token, "svc_wh_000000000000000000000000"),
  occurred_at: mostly([null], ["2026-02-30T10:00:00Z"]).map((v) => v ?? new Date().toISOString()), captured_at: instants,
  ...(path.startsWith("/api/v1/website-events") ? { event: fc.constantFrom("cart.viewed", "booking.step_completed", "Not An Event") } : {}),
  reservation_id: fc.constant(null).map(() => uniqueId("fz")), booking_id: fc.constant(null).map(() => uniqueId("fb")),
  call_id: fc.constant(null).map(() => uniqueId("fc")), idempotency_key: fc.constant(null).map(() => uniqueId("fi")),
  phone: phones, guest_phone: phones, from: phones, to: phones, from_number: phones, to_number: phones,
  email: mostly(["ana.fuzz@gmail.com"], ["not-an-email"]), currency: fc.constantFrom("EUR", "USD"),
  first_name: mostly(["Ana", "José", "Łukasz"], [""]), last_name: fc.constantFrom("García", "O'Brien"),
  check_in: mostly(["2026-12-01"], ["2026-02-30"]), check_out: mostly(["2026-12-04"], ["2026-11-30"]),
  start_date: mostly(["2026-12-01"], ["2026-02-30"]), end_date: mostly(["2026-12-02"], ["1899-12-31"]),
  date: dates, booking_date: dates, date_of_birth: dates, ts: instants,
  visitor_id: fc.constantFrom("fz-visitor-1", "fz-visitor-2"), session_id: fc.constantFrom("fz-session-1", "fz-session-2"), cart_id: fc.constant("fz-cart"),
  started_at: instants, answered_at: instants, ended_at: instants, timestamp: instants, consent_timestamp: instants,
  external_created_at: instants, external_updated_at: instants, pre_checkin_completed_at: instants,
  event_type: path.startsWith("/api/webhooks/cti")
    ? fc.constantFrom("call_ringing", "call_answered", "call_hangup", "call_missed", "record_available")
    : fc.constantFrom("guest.message", "booking.created", "custom.thing"),
  ...(path.startsWith("/api/v1/website-events") ? {} : { event: fc.constant("call_completed") }), direction: fc.constantFrom("inbound", "outbound"),
  url: fc.constant("https://127.0.0.1:1/fuzz"), field_key: fc.constantFrom("fuzz_field", "room_pref"),
  check_in_time: fc.constant("14:30"), check_out_time: fc.constant("11:00"), limit: fc.constantFrom("5", "0", "1000"),
  language: fc.constantFrom("es", "en-GB"), nationality: fc.constantFrom("ES", "ESP", "Spain"),
  // Auctions end far away: the auction sweep would otherwise close them in the background (publishing to the ingress
  // stream while a refused request is checked for publishing nothing).
  ends_at: fc.constant("2099-12-31T00:00:00Z"),
  // Loyalty SSO clients: mostly valid redirect URIs, so client creations are accepted and swept.
  redirect_uris: mostly<unknown>([["https://hotel.example/cb"]], [["not a url"]]),
  // Journeys stay drafts: an active one would make the journey engine publish signals for the fuzz's bookings and events
  // in the background, which the "a refused request publishes nothing" check cannot tell from the request's own.
  ...(path.startsWith("/api/v1/journeys") ? { status: fc.constant("draft") } : {}),
  // Journey definitions: mostly valid ones (random step graphs rarely pass the definition check), so the sweep gets a base.
  // Their events are ones the fuzz never sends (and they do not stop on bookings), so even a journey the sweep activates
  // gives the journey engine nothing to route.
  trigger: mostly<unknown>([
    { type: "event", event: "fuzz.never_sent", stop_when: ["fuzz.never_stopped"], stop_on_booking: false, reentry: { after: "P7D" } },
    { type: "reservation_date", anchor: "check_in", offset: "-P2D", local_time: "10:00", late: "send" }
  ], [{ type: "event", event: "Not.An.Event" }]),
  // Broadcast audiences: mostly a valid definition (a draft is then saved and the sweep has a base to mutate).
  audience: mostly<unknown>([{ definition: { version: 1, match: { field: "contact.language", op: "eq", value: "es" } } }], [{ segment_id: "nope" }]),
  // Segment definitions: mostly valid ones (random trees rarely name whitelisted fields with fitting operators).
  definition: mostly<unknown>([
    { version: 1, match: { all: [{ field: "contact.language", op: "in", value: ["es", "ca"] }, { not: { field: "contact.tags", op: "contains_any", value: ["staff"] } },
      { has_stay: { where: { field: "stay.nights", op: "gte", value: 2 }, count: { op: "gte", value: 1 } } }] } }
  ], [{ version: 1, match: { field: "contact.shoe_size", op: "eq", value: 42 } }]),
  steps: mostly<unknown>([
    [{ id: "w1", type: "wait", duration: "PT1H" }, { id: "e1", type: "email", category: "utility", subject: "Hi {{contact_first_name}}", text: "x", html: "<p>{{event_check_in}}</p>" },
      { id: "b1", type: "branch", if: { property: "event.payload.room", equals: 3 }, then: "end", else: "x1" }, { id: "x1", type: "end" }]
  ], [[{ id: "b", type: "branch", if: { has: "email" }, then: "b", else: "end" }]])
})

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([m, op]) => ({ method: m.toUpperCase(), path, op })))
    .filter(({ method, path }) => ONLY_ROUTE === undefined || ONLY_ROUTE === `${method} ${path}`)

/** A request for the operation: its path and query filled from the parameter schemas, its body from the body schema. */
const requestArbitrary = (method: string, path: string, op: Operation, only?: Mutation) => {
  const h = hints(path)
  const param = (p: NonNullable<Operation["parameters"]>[number]) =>
    fc.tuple(arbitraryOf(p.schema, doc, h, p.name).map(String), fc.constantFrom("", "", "", "", "", "\u0000", "\ud800", "\udfff%"))
      .map(([v, bad]) => v + bad)
  const params = op.parameters ?? []
  const bodySchema = op.requestBody?.content["application/json"]?.schema
  // Batch (and bulk) items are decoded by their handler with the single route's schema: generated from it.
  const batch = /\/(batch|bulk)$/.exec(path)
  const single = batch ? doc.paths[path.slice(0, -batch[0].length)]?.post?.requestBody?.content["application/json"]?.schema : undefined
  const itemHints: Hints = single ? { ...h, reservations: fc.array(arbitraryOf(single, doc, h), { minLength: 1, maxLength: 3 }), guests: fc.array(arbitraryOf(single, doc, h), { minLength: 1, maxLength: 3 }) } : h
  return fc.record({
    params: fc.tuple(...params.map((p) => fc.option(param(p), { nil: undefined, freq: p.required ? 1_000_000 : 3 }))),
    body: bodySchema === undefined ? fc.constant(undefined) : arbitraryOf(bodySchema, doc, itemHints),
    mutation: only !== undefined
      ? fc.constant(only)
      : fc.oneof({ arbitrary: fc.constant<Mutation>("none"), weight: 1 }, { arbitrary: fc.constantFrom(...MUTATIONS), weight: 2 }),
    fromAccepted: fc.boolean(),
    pick: fc.nat()
  }).map(({ params: values, body, mutation, fromAccepted, pick }) => {
    let url = path
    const query: Array<string> = []
    params.forEach((p, i) => {
      const v = values[i]
      if (v === undefined) return
      if (p.in === "path") url = url.replace(`{${p.name}}`, urlEncode(v))
      else if (p.in === "query") query.push(`${p.name}=${urlEncode(v)}`)
    })
    // Prototype names in the query too, the pollution payloads of query-string parsers among them.
    if (mutation === "proto-key") query.push(`${PROTOTYPE_KEYS[pick % PROTOTYPE_KEYS.length]}=x`, "__proto__[polluted]=yes", "constructor[prototype][polluted]=yes")
    return {
      method, url: query.length > 0 ? `${url}?${query.join("&")}` : url, mutation,
      /**
       * The body sent: the generated one, or (half the time once this route has accepted some) a body the route
       * accepted, so the one place mutated is the only thing wrong with it and a hole behind it cannot hide behind
       * another refusal. "oversize" only where a body is read.
       */
      body: (accepted: ReadonlyArray<unknown>) => {
        const base = fromAccepted && mutation !== "none" && accepted.length > 0 ? accepted[pick % accepted.length] : body
        return base === undefined ? undefined : mutate(base, mutation, pick)
      },
      describe: () => `${method} ${url} ${mutation}`
    }
  })
}

/**
 * Every envelope published on this deployment's ingress subjects for the fuzz's own tenants, in order (a core NATS
 * subscription sees each JetStream publish). Counting the stream's sequence instead charged a refused request with
 * what this platform's sweeps publish for other test files' tenants, which share the database.
 */
const published: Array<{ actor: string; type: string; key: string }> = []
const ownTenants = new Set<string>()
const publishedSince = async (n: number) => {
  await nc.flush()
  return published.slice(n)
}
/** This tenant's dead letters (other test files share the database and dead-letter on purpose). */
const deadLetters = async () => (await sql`SELECT count(*)::int AS n FROM dead_letters WHERE tenant_id = ${tenant.tenant_id}`)[0]!.n as number

/** The dead letters after the previous request (requests run one at a time). */
let dead: number | undefined

/** The previous request was an accepted write: what it makes other actors do may still be on its way to the stream. */
let afterAcceptedWrite = false

/**
 * After an accepted write, waits until what it set going has stopped publishing: no new own envelope for 150 ms and
 * nothing left unconsumed on the stream (an actor answers, then publishes what its transaction wrote for other actors,
 * and those may write for others again), at most 5 s.
 */
const settle = async () => {
  for (let i = 0; i < 33; i++) {
    const n = published.length
    await new Promise((r) => setTimeout(r, 150))
    const { state: s } = await jsm.streams.info(ingressStream(platform.config.namespace))
    if ((await publishedSince(n)).length === 0 && s.messages === 0) return
  }
}

const bulkDone = async (id: string) => {
  for (let i = 0; i < 600; i++) {
    const res = await request(platform.baseUrl, "GET", `/api/v1/cdp/batches/${id}`, { key })
    if (["completed", "failed"].includes(res.body?.data?.status)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`bulk job ${id} not done`)
}

/** One request and the checks every request gets; the answer's status. */
const check = async (method: string, url: string, body: unknown, what: string): Promise<number> => {
  // An actor answers, then publishes the messages its transaction wrote for other actors (a stay for a loyalty member,
  // a bid for an auction): let those land before this request's baseline is read.
  if (afterAcceptedWrite) await settle()
  dead ??= await deadLetters()
  const deadBefore = dead
  await nc.flush()
  const before = published.length
  const res = await request(platform.baseUrl, method, url, {
    key: credentialFor(url), headers: headersFor(url), ...(body === undefined ? {} : { raw: bodyText(body) })
  }).catch((e: unknown) => ({ status: 0, body: String(e) }))
  const shown = `${what} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`
  expect(res.status, shown).toBeGreaterThan(0)
  expect(res.status, shown).toBeLessThan(500)
  // The platform runs in this process: a key named `__proto__` or `constructor.prototype` that reached an assignment
  // would show on every object here.
  expect(({} as Record<string, unknown>).polluted, `Object.prototype polluted: ${shown}`).toBeUndefined()
  const [sent, deadAfter] = await Promise.all([publishedSince(before), deadLetters()])
  dead = deadAfter
  if (EDGE_REFUSALS.has(res.status)) expect(sent, `published: ${shown}`).toEqual([])
  afterAcceptedWrite = method !== "GET" && res.status >= 200 && res.status < 300
  // A CDP bulk job is processed in the background: it publishes until it is done, so the next baseline waits for it.
  if (res.status === 202 && url.startsWith("/api/v1/cdp/reservations/bulk")) await bulkDone((res.body as { data: { batch_id: string } }).data.batch_id)
  if (deadAfter !== deadBefore) {
    // Which actor gave up and why: the dead letters' own record, so a rare failure can be understood from one run.
    const letters = await sql`SELECT actor, subject, error, attempts FROM dead_letters WHERE tenant_id = ${tenant.tenant_id} ORDER BY failed_at DESC LIMIT ${deadAfter - deadBefore}`
    expect(deadAfter, `dead-lettered: ${shown}\n${JSON.stringify(letters)}`).toBe(deadBefore)
  }
  return res.status
}

describe("the API fuzzed from its OpenAPI document", () => {
  const statuses = new Map<string, number>()
  /** Bodies each route accepted (2xx) unchanged: the bases of the sweep below. */
  const acceptedBy = new Map<string, Array<unknown>>()
  let requests = 0
  const started = Date.now()

  it("documents the routes it fuzzes", () => {
    expect(operations().length).toBeGreaterThan(ONLY_ROUTE === undefined ? 20 : 0)
  })

  it("answers every request < 500; a refused one publishes nothing; nothing is ever dead-lettered", async () => {
    for (const { method, path, op } of operations()) {
      const accepted: Array<unknown> = []
      acceptedBy.set(`${method} ${path}`, accepted)
      await fc.assert(fc.asyncProperty(requestArbitrary(method, path, op), async (r) => {
        const body = r.body(accepted)
        const status = await check(r.method, r.url, body, r.describe())
        requests++
        if (r.mutation === "none" && body !== undefined && status >= 200 && status < 300 && accepted.length < 20) accepted.push(body)
        const tally = `${r.mutation} ${status}`
        statuses.set(tally, (statuses.get(tally) ?? 0) + 1)
      }), { numRuns: RUNS, endOnFailure: true, ...SEED })
    }
    console.log(JSON.stringify({ fuzz: { routes: operations().length, requests, seconds: (Date.now() - started) / 1000, statuses: Object.fromEntries([...statuses].sort()) } }))
  }, 300_000)

  it("sweeps each class over every place of a body each route accepted: one thing wrong at a time, nowhere to hide", async () => {
    const swept: Record<string, number> = {}
    for (const [route, accepted] of acceptedBy) {
      const [method, path] = route.split(" ") as [string, string]
      const op = doc.paths[path]![method.toLowerCase()]!
      if (op.requestBody === undefined) continue
      // A route that accepted nothing in the random phase gets more unmutated tries (a sweep needs a base).
      for (const r of fc.sample(requestArbitrary(method, path, op, "none"), 60)) {
        if (accepted.length > 0) break
        const body = r.body([])
        const status = await check(r.method, r.url, body, r.describe())
        if (status >= 200 && status < 300) accepted.push(body)
      }
      if (accepted.length === 0) continue
      // The accepted body with the most places: the most optional fields present.
      const base = accepted.reduce((a, b) => (placesFor(b, "nul") + placesFor(b, "huge-number") > placesFor(a, "nul") + placesFor(a, "huge-number") ? b : a))
      const url = path.replace("{provider}", "aircall").replace(/\{[^}]+\}/g, idFor(path))
      let n = 0
      for (const mutation of ["nul", "huge-number", "deep", "surrogate", "nul-key"] as const) {
        // Spread over the body, first place to last, when there are more places than the class may take.
        const places = placesFor(base, mutation)
        const k = Math.min(places, SWEEP_PER_CLASS)
        for (let i = 0; i < k; i++) {
          const pick = Math.floor((i * places) / k)
          await check(method, url, mutate(base, mutation, pick), `${route} ${mutation} #${pick}`)
          n++
        }
      }
      // Prototype names beside the budget above, in two bodies: every name added as a key, and the first six keys
      // renamed to prototype names (one request each, not one per name: the issue formatter meets them all together,
      // and the random runs above try them one at a time).
      for (const [mutation, most] of [["proto-key", PROTOTYPE_KEYS.length], ["proto-rename", 6]] as const) {
        let body: unknown = base
        for (let pick = 0; pick < Math.min(placesFor(base, mutation), most); pick++) body = mutate(body, mutation, pick)
        if (body === base) continue
        await check(method, url, body, `${route} ${mutation} x${Math.min(placesFor(base, mutation), most)}`)
        n++
      }
      swept[route] = n
      requests += n
    }
    console.log(JSON.stringify({ sweep: swept }))
  }, 300_000)

  it("leaves the platform ready", async () => {
    const ready = await request(platform.baseUrl, "GET", "/readyz")
    expect(ready.status).toBe(200)
  })
})
