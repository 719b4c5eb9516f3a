import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { WINDOW_MS, windowStartOf } from "../../src/auth/slidingWindow.ts"
import { phone, reservation, uniqueId } from "../support/fixtures.ts"
import { type JsonSchema, resolveRef, validate } from "../support/jsonSchema.ts"
import { unsubscribeToken } from "../../core/message/unsubscribe.ts"
import { signInEmailBucket } from "../../core/privacy/rateBuckets.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { suppress, usePrivacyKey } from "../privacy/support.ts"
import { c, type Case, OWN_ERROR_SHAPES, rawRouteCases, type RouteCases } from "./rawRouteCases.ts"
import { newsletterRoutes } from "../newsletter/openapiCases.ts"
import { readRoutes } from "../reservation/openapiCases.ts"
import { tenancyRoutes } from "../tenancy/openapiCases.ts"
import { contactRoutes } from "../contact/openapiCases.ts"
import { segmentRoutes } from "../segment/openapiCases.ts"
import { broadcastRoutes } from "../broadcast/openapiCases.ts"
import { privacyRoutes } from "../privacy/openapiCases.ts"
import { webhookRoutes } from "../webhook/openapiCases.ts"
import { staffRoutes } from "../staff/openapiCases.ts"
import { messageRoutes } from "../message/openapiCases.ts"
import { overviewRoutes } from "../overview/openapiCases.ts"
import {
  createCtiIntegration, createKey, createTenant, type HttpResult, request, resultOf, startPlatform, testSql, type RunningPlatform, type TestTenant
} from "../support/platform.ts"
import { digest } from "../../src/oidc/secrets.ts"
import { absolute, authorizationCode, basic, browser, formOf, memberAccessToken, newClient, pkce, startInteraction, transferToken } from "../oidc/support.ts"

/**
 * Conformance of real answers to /openapi.json: every route the document lists has a case table entry below, every
 * status it documents for that route is either produced by a real request here or explained in `notCaused`, and
 * every answer's status is documented for its route and its JSON body validates against the documented schema.
 * A new route fails "every documented route has cases" until its cases are added.
 */

// URL_NOT_ALLOWED (422) needs the loopback switch off, as in production.
delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
// Every sign-in of the run comes from 127.0.0.1 and test files share the rate counters: the per-IP limit would bind across files.
process.env.GEP_SSO_CODES_PER_IP_PER_MINUTE = "100000"
process.env.GEP_STAFF_CODES_PER_IP_PER_MINUTE = "100000"
/** The platform's at-rest key, known here so an unsubscribe link can be made as the platform makes it. */
const encryptionKey = useEncryptionKey()
/** The platform's privacy key, so a case can suppress a guest; read on every request, so it takes effect at once. */
const privacyKey = usePrivacyKey()
process.env.GEP_SUPPRESSION_CACHE_MS = "0"

let platform: RunningPlatform
let tenant: TestTenant
let doc: OpenApiDocument
/** A key of the tenant holding only a scope no route needs: 403 everywhere. */
let narrowKey: string
let privacyWriteKey: string
/** A key whose rate-limit bucket is already full in the shared counters: 429 everywhere. */
let limitedKey: string
let ctiToken: string
/** A CTI token of another tenant whose telephony bucket is full. */
let limitedCtiToken: string
/** A tenant whose channels are never configured: 404 CHANNEL_NOT_CONFIGURED. */
let unconfigured: TestTenant
/** The tenant the channel configuration cases change (the messaging cases keep theirs). */
let channelsTenant: TestTenant
const sql = testSql()

interface OpenApiOperation {
  readonly requestBody?: unknown
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema?: JsonSchema }> }>
}
interface OpenApiDocument {
  readonly openapi: string
  readonly paths: Record<string, Record<string, OpenApiOperation>>
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"]
const operationsOf = (d: OpenApiDocument) =>
  Object.entries(d.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, op })))

/** Fill the rate-limit bucket's shared counters (previous, current and next minute), before any ingress loads it. */
const exhaust = async (bucket: string) => {
  const now = windowStartOf(Date.now())
  for (const start of [now - WINDOW_MS, now, now + WINDOW_MS]) {
    await sql`INSERT INTO rate_counters (bucket, window_start, count) VALUES (${bucket}, ${new Date(start)}, 1000000000)
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = EXCLUDED.count`
  }
}

beforeAll(async () => {
  platform = await startPlatform("openapi")
  const other = await Promise.all([createTenant("oa"), createTenant("oa-limited"), createTenant("oa-channels")])
  tenant = other[0]
  unconfigured = other[1]
  channelsTenant = other[2]
  const [narrow, limited, cti, limitedCti, privacy] = await Promise.all([
    createKey(tenant.tenant_id, ["surveys:write"]),
    createKey(tenant.tenant_id, ["*", "privacy:write"]),
    createCtiIntegration(tenant.tenant_id, "aircall"),
    createCtiIntegration(other[1].tenant_id, "aircall"),
    createKey(tenant.tenant_id, ["*", "privacy:write"])
  ])
  privacyWriteKey = privacy.key
  narrowKey = narrow.key
  limitedKey = limited.key
  ctiToken = cti.token
  limitedCtiToken = limitedCti.token
  await exhaust(limited.key_id)
  await exhaust(`telephony:${other[1].tenant_id}`)
  sso.limitedClub = await newClient(platform.baseUrl, tenant.live_key, SSO_REDIRECT, "http://127.0.0.1/bye")
  await exhaust(`club:${sso.limitedClub.client_id}`)
  const res = await request(platform.baseUrl, "GET", "/openapi.json")
  expect(res.status).toBe(200)
  doc = res.body as OpenApiDocument
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

// ---------------------------------------------------------------------------------------------------------------
// Requests

type Options = { key?: string; body?: unknown; raw?: string; contentType?: string; headers?: Record<string, string> }
const call = (method: string, path: string, options: Options = {}) => request(platform.baseUrl, method, path, options)
const as = (method: string, path: string, body?: unknown) => call(method, path, { key: tenant.live_key, ...(body === undefined ? {} : { body }) })
const data = async (res: Promise<HttpResult>) => {
  const r = await res
  if (r.status >= 300) throw new Error(`fixture request failed: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.data
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
const guestPhone = () => phone(Math.floor(Math.random() * 80_000_000))
/** A new number, suppressed by a privacy request (effective at once: GEP_SUPPRESSION_CACHE_MS is 0 here). */
const suppressedPhone = async () => {
  const p = guestPhone()
  await suppress(sql, privacyKey, { tenant_id: tenant.tenant_id, sandbox: false }, { kind: "phone", value: p.replace(/\s/g, "") })
  return p
}
const newGuest = () => data(as("POST", "/api/v1/guests", { phone: guestPhone(), first_name: "Open", last_name: "Api" }))
// Nothing in this file emits broadcast.completed, and the subscription is disabled: the worker never delivers to it.
const PUBLIC_URL = "https://93.184.215.14/hooks/openapi"
const subscription = (overrides: Record<string, unknown> = {}) => ({ url: PUBLIC_URL, event_types: ["broadcast.completed"], enabled: false, ...overrides })
const newSubscription = () => data(as("POST", "/api/v1/webhooks", subscription()))
/** The tenant's email channel (no SMTP server here: sends stay queued and retry; the API's answers are what is checked). */
const emailChannel = () => sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${tenant.tenant_id}, false, 'stay@hotelexample.com')
  ON CONFLICT DO NOTHING`
/** A conversation, opened by a queued utility email. */
const newConversation = async () => {
  await emailChannel()
  const guest = await data(as("POST", "/api/v1/guests", { phone: guestPhone(), first_name: "Open", last_name: "Api", email: `open${Date.now()}${Math.random().toString(36).slice(2, 6)}@gmail.com` }))
  const sent = await data(as("POST", "/api/v1/messages", { contact_id: guest.contact_id, channel: "email", category: "utility", subject: "s", text: "x" }))
  const [row] = await sql`SELECT conversation_id FROM messages WHERE id = ${sent.message_id}`
  return row!.conversation_id as string
}
const callId = () => uniqueId("call")
const ctiEvent = (overrides: Record<string, unknown> = {}) => ({ event_type: "call_missed", call_id: callId(), ...overrides })
const completedCall = (overrides: Record<string, unknown> = {}) => ({
  event: "call_completed", call_id: callId(), direction: "inbound", from: guestPhone(), to: "+34910000000",
  started_at: "2026-11-20T10:00:00Z", answered_at: "2026-11-20T10:00:05Z", ended_at: "2026-11-20T10:04:05Z", ...overrides
})
const cti = (body: unknown, path = "/api/webhooks/cti", token = ctiToken) => call("POST", path, { key: token, body })
const phoneNumberId = () => String(100_000_000_000_000 + Math.floor(Math.random() * 899_999_999_999_999))
const whatsApp = (overrides: Record<string, unknown> = {}) => ({
  phone_number_id: phoneNumberId(), access_token: "EAAG-openapi", app_secret: "openapi-secret", verify_token: "openapi-verify",
  templates: [{ name: "booking_confirmation", language: "es", category: "utility", body_parameters: 2 }], ...overrides
})
const onChannels = (method: string, path: string, body?: unknown) =>
  call(method, path, { key: channelsTenant.live_key, ...(body === undefined ? {} : { body }) })
const configureWhatsApp = () => data(onChannels("PUT", "/api/v1/channels/whatsapp", whatsApp()))
const TEMPLATE = "/api/v1/channels/whatsapp/templates/late_checkout/es"
const newAccount = (body: Record<string, unknown> = {}) => data(as("POST", "/b2b/accounts", { type: "agency", name: uniqueId("OA"), ...body }))
const newDeal = async (body: Record<string, unknown> = {}) =>
  data(as("POST", "/b2b/deals", { account_id: (await newAccount()).account_id, name: "Deal", type: "group", stage: "lead", ...body }))
/** A stored reservation's attribution path. */
const newReservation = async (overrides: Record<string, unknown> = {}) => {
  const body = reservation({ hotel_code: tenant.hotel_code }, overrides)
  await data(as("POST", "/api/v1/reservations", body))
  return `/b2b/reservations/${encodeURIComponent(body.reservation_id)}/attribution`
}

// ---------------------------------------------------------------------------------------------------------------
// Case table: one entry per route of the document


/** 401 without a key, 403 with a key lacking the scope, 429 with a key over its limit: API-key routes. */
const keyCases = (method: string, path: string, body?: unknown): Array<Case> => {
  const withBody = body === undefined ? {} : { body }
  return [
    c(401, "no API key", () => call(method, path, withBody)),
    c(403, "a key without the route's scope", () => call(method, path, { key: narrowKey, ...withBody })),
    c(429, "a key over its rate limit", () => call(method, path, { key: limitedKey, ...withBody }))
  ]
}

const ACTOR_FAILURES = {
  500: "a dead-lettered actor call: needs a poisoned actor, which the actor runtime tests cover",
  503: "a write not confirmed in time: needs NATS or the worker away, which the chaos tests cover"
} as const
/** Loyalty SSO's 503: the database cut under the provider's routes and the sign-in pages (test/oidc/outage.test.ts). */
const DATABASE_AWAY = { 503: "the database away: test/oidc/outage.test.ts cuts it under a platform of its own" } as const
const NOTHING_TO_VALIDATE = "documented by the ValidationErrors middleware of the group, but the route has no body or query to fail"
/** A path parameter holding NUL: refused by the text policy (SafeString) with 400 naming it. */
const nulParam = (method: string, path: string) => c(400, "NUL in a path parameter (the text policy)", () => as(method, path))

/** The loyalty family's routes (kept apart so the table's other entries merge cleanly). */
const loyaltyProgram = async () =>
  data(as("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 }))
const loyaltyMember = async (loyalty_balance = 1000) =>
  data(as("POST", "/api/v1/loyalty/enroll", { email: `${uniqueId("loyal").toLowerCase()}@gmail.com`, loyalty_balance })) as Promise<{ member_id: string; email: string }>
const loyaltyReward = async () => (await data(as("POST", "/api/v1/loyalty/rewards", { name: "Spa", type: "amenity", points_cost: 100, auto_fulfill: false }))).reward_id as string
const loyaltyExperienceBody = () => ({ name: "Chef's table", starting_bid: 100, min_increment: 10, ends_at: new Date(Date.now() + 3_600_000).toISOString() })
const loyaltyExperience = async () => (await data(as("POST", "/api/v1/loyalty/experiences", loyaltyExperienceBody()))).experience_id as string
const loyaltyRoutes: Record<string, RouteCases> = {
  "PUT /api/v1/loyalty/program": {
    cases: [
      c(200, "the programme", () => as("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, points_per_night: 100, pending_days: 0, expiry_months: 24, point_value: 0.01 })),
      c(400, "a currency of four letters", () => as("PUT", "/api/v1/loyalty/program", { currency: "EURO", points_per_unit: 10, point_value: 0.01 })),
      ...keyCases("PUT", "/api/v1/loyalty/program", {})
    ]
  },
  "PUT /api/v1/loyalty/tiers": {
    cases: [
      c(200, "two tiers", () => as("PUT", "/api/v1/loyalty/tiers", [
        { tier_slug: "blue", tier_name: "Blue", threshold: 0, basis: "qualifying_points" },
        { tier_slug: "gold", tier_name: "Gold", threshold: 10, basis: "qualifying_nights", window: "calendar_year", earn_multiplier: 1.25 }
      ])),
      c(400, "thresholds out of order", () => as("PUT", "/api/v1/loyalty/tiers", [
        { tier_slug: "gold", tier_name: "Gold", threshold: 5000, basis: "qualifying_points" },
        { tier_slug: "blue", tier_name: "Blue", threshold: 0, basis: "qualifying_points" }
      ])),
      ...keyCases("PUT", "/api/v1/loyalty/tiers", [])
    ]
  },
  "GET /api/v1/loyalty/tiers": {
    cases: [c(200, "the tiers", () => as("GET", "/api/v1/loyalty/tiers")), ...keyCases("GET", "/api/v1/loyalty/tiers")],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "POST /api/v1/loyalty/rewards": {
    cases: [
      c(201, "a stocked reward", () => as("POST", "/api/v1/loyalty/rewards", { name: "Late checkout", type: "amenity", points_cost: 500, auto_fulfill: true, stock: 10 })),
      c(400, "a cost of 0 points", () => as("POST", "/api/v1/loyalty/rewards", { name: "X", type: "amenity", points_cost: 0, auto_fulfill: true })),
      ...keyCases("POST", "/api/v1/loyalty/rewards", {})
    ]
  },
  "GET /api/v1/loyalty/rewards": {
    cases: [
      c(200, "the catalogue", async () => {
        await loyaltyReward()
        return as("GET", "/api/v1/loyalty/rewards")
      }),
      c(200, "a page and the next one", async () => {
        await Promise.all([loyaltyReward(), loyaltyReward()])
        const first = await data(as("GET", "/api/v1/loyalty/rewards?limit=1"))
        return as("GET", `/api/v1/loyalty/rewards?limit=1&cursor=${first.next_cursor}`)
      }),
      c(400, "a cursor this API never returned", () => as("GET", "/api/v1/loyalty/rewards?cursor=garbage")),
      ...keyCases("GET", "/api/v1/loyalty/rewards")
    ]
  },
  "POST /api/v1/loyalty/enroll": {
    cases: [
      c(201, "a new member", () => as("POST", "/api/v1/loyalty/enroll", { email: `${uniqueId("new").toLowerCase()}@gmail.com`, first_name: "Ana", loyalty_balance: 10 })),
      c(200, "an existing member", async () => as("POST", "/api/v1/loyalty/enroll", { email: (await loyaltyMember()).email })),
      c(400, "an invalid email", () => as("POST", "/api/v1/loyalty/enroll", { email: "nope" })),
      c(422, "a guest suppressed by a privacy request", async () => {
        const email = `${uniqueId("gone").toLowerCase()}@gmail.com`
        await suppress(sql, privacyKey, { tenant_id: tenant.tenant_id, sandbox: false }, { kind: "email", value: email })
        return as("POST", "/api/v1/loyalty/enroll", { email })
      }),
      ...keyCases("POST", "/api/v1/loyalty/enroll", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/unsubscribe": {
    cases: [
      c(200, "a member leaves", async () => as("POST", "/api/v1/loyalty/unsubscribe", { member_id: (await loyaltyMember()).member_id, reason: "asked" })),
      c(400, "both member_id and email", () => as("POST", "/api/v1/loyalty/unsubscribe", { member_id: NO_SUCH_ID, email: "a@gmail.com" })),
      c(404, "an unknown member", () => as("POST", "/api/v1/loyalty/unsubscribe", { member_id: NO_SUCH_ID })),
      ...keyCases("POST", "/api/v1/loyalty/unsubscribe", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/v1/loyalty/member": {
    cases: [
      c(200, "a member by email", async () => as("GET", `/api/v1/loyalty/member?email=${encodeURIComponent((await loyaltyMember()).email)}`)),
      c(400, "neither member_id nor email", () => as("GET", "/api/v1/loyalty/member")),
      c(404, "an unknown member", () => as("GET", `/api/v1/loyalty/member?member_id=${NO_SUCH_ID}`)),
      ...keyCases("GET", `/api/v1/loyalty/member?member_id=${NO_SUCH_ID}`)
    ]
  },
  "GET /api/v1/loyalty/check": {
    cases: [
      c(200, "a member", async () => as("GET", `/api/v1/loyalty/check?email=${encodeURIComponent((await loyaltyMember()).email)}`)),
      c(200, "a stranger", () => as("GET", "/api/v1/loyalty/check?email=stranger.oa@gmail.com")),
      c(400, "no email", () => as("GET", "/api/v1/loyalty/check")),
      ...keyCases("GET", "/api/v1/loyalty/check?email=a@gmail.com")
    ]
  },
  "GET /api/v1/loyalty/transactions": {
    cases: [
      c(200, "a member's ledger", async () => as("GET", `/api/v1/loyalty/transactions?member_id=${(await loyaltyMember()).member_id}`)),
      c(400, "a limit out of range", async () => as("GET", `/api/v1/loyalty/transactions?member_id=${NO_SUCH_ID}&limit=500`)),
      c(404, "an unknown member", () => as("GET", `/api/v1/loyalty/transactions?member_id=${NO_SUCH_ID}`)),
      ...keyCases("GET", `/api/v1/loyalty/transactions?member_id=${NO_SUCH_ID}`)
    ]
  },
  "POST /api/v1/loyalty/points": {
    cases: [
      c(200, "points for a stay", async () => {
        await loyaltyProgram()
        return as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, amount: 120, currency: "EUR", nights: 1, external_reference_id: uniqueId("E") })
      }),
      c(400, "no retry key", async () => as("POST", "/api/v1/loyalty/points", { member_id: NO_SUCH_ID, points: 5 })),
      c(404, "an unknown member", () => as("POST", "/api/v1/loyalty/points", { member_id: NO_SUCH_ID, points: 5, external_reference_id: uniqueId("E") })),
      c(409, "a key reused with other points", async () => {
        const m = await loyaltyMember()
        const key = uniqueId("E")
        await data(as("POST", "/api/v1/loyalty/points", { member_id: m.member_id, points: 5, external_reference_id: key }))
        return as("POST", "/api/v1/loyalty/points", { member_id: m.member_id, points: 6, external_reference_id: key })
      }),
      c(422, "an amount in another currency", async () => {
        await loyaltyProgram()
        return as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, amount: 10, currency: "JPY", external_reference_id: uniqueId("E") })
      }),
      ...keyCases("POST", "/api/v1/loyalty/points", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/points/confirm": {
    cases: [
      c(200, "a pending earn", async () => {
        const earned = await data(as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, points: 5, status: "pending", external_reference_id: uniqueId("E") }))
        return as("POST", "/api/v1/loyalty/points/confirm", { transaction_id: earned.transaction_id })
      }),
      c(400, "a transaction_id that is no uuid", () => as("POST", "/api/v1/loyalty/points/confirm", { transaction_id: "x" })),
      c(404, "an unknown earn", () => as("POST", "/api/v1/loyalty/points/confirm", { transaction_id: NO_SUCH_ID })),
      c(409, "a voided earn", async () => {
        const earned = await data(as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, points: 5, status: "pending", external_reference_id: uniqueId("E") }))
        await data(as("POST", "/api/v1/loyalty/points/void", { transaction_id: earned.transaction_id }))
        return as("POST", "/api/v1/loyalty/points/confirm", { transaction_id: earned.transaction_id })
      }),
      c(409, "more points than pending", async () => {
        const earned = await data(as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, points: 5, status: "pending", external_reference_id: uniqueId("E") }))
        return as("POST", "/api/v1/loyalty/points/confirm", { transaction_id: earned.transaction_id, points: 6 })
      }),
      ...keyCases("POST", "/api/v1/loyalty/points/confirm", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/points/void": {
    cases: [
      c(200, "a pending earn", async () => {
        const earned = await data(as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, points: 5, status: "pending", external_reference_id: uniqueId("E") }))
        return as("POST", "/api/v1/loyalty/points/void", { transaction_id: earned.transaction_id })
      }),
      c(400, "no transaction_id", () => as("POST", "/api/v1/loyalty/points/void", {})),
      c(404, "an unknown earn", () => as("POST", "/api/v1/loyalty/points/void", { transaction_id: NO_SUCH_ID })),
      c(409, "a confirmed earn", async () => {
        const earned = await data(as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, points: 5, external_reference_id: uniqueId("E") }))
        return as("POST", "/api/v1/loyalty/points/void", { transaction_id: earned.transaction_id })
      }),
      ...keyCases("POST", "/api/v1/loyalty/points/void", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/apply-discount": {
    cases: [
      c(200, "points as a discount", async () => {
        await loyaltyProgram()
        return as("POST", "/api/v1/loyalty/apply-discount", { member_id: (await loyaltyMember()).member_id, amount: 5, currency: "EUR", reference_id: "B-1" })
      }),
      c(400, "neither points nor amount", () => as("POST", "/api/v1/loyalty/apply-discount", { member_id: NO_SUCH_ID })),
      c(404, "an unknown member", () => as("POST", "/api/v1/loyalty/apply-discount", { member_id: NO_SUCH_ID, points: 5 })),
      c(409, "more points than the member has", async () =>
        as("POST", "/api/v1/loyalty/apply-discount", { member_id: (await loyaltyMember(5)).member_id, points: 6 })),
      c(422, "another currency", async () => {
        await loyaltyProgram()
        return as("POST", "/api/v1/loyalty/apply-discount", { member_id: (await loyaltyMember()).member_id, amount: 5, currency: "GBP" })
      }),
      ...keyCases("POST", "/api/v1/loyalty/apply-discount", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/v1/loyalty/conversion": {
    cases: [
      c(200, "points to money", async () => {
        await loyaltyProgram()
        return as("GET", "/api/v1/loyalty/conversion?points=500")
      }),
      c(400, "both points and amount", () => as("GET", "/api/v1/loyalty/conversion?points=1&amount=1")),
      c(422, "another currency", async () => {
        await loyaltyProgram()
        return as("GET", "/api/v1/loyalty/conversion?amount=1&currency=GBP")
      }),
      ...keyCases("GET", "/api/v1/loyalty/conversion?points=1")
    ]
  },
  "POST /api/v1/loyalty/redemptions/batch": {
    cases: [
      c(200, "one ok and one refused", async () => {
        const m = await loyaltyMember(10)
        return as("POST", "/api/v1/loyalty/redemptions/batch", { items: [
          { member_id: m.member_id, points: 10, external_reference_id: uniqueId("R") },
          { member_id: m.member_id, points: 10, external_reference_id: uniqueId("R") }
        ] })
      }),
      c(400, "no items", () => as("POST", "/api/v1/loyalty/redemptions/batch", { items: [] })),
      ...keyCases("POST", "/api/v1/loyalty/redemptions/batch", { items: [] })
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/redeem": {
    cases: [
      c(200, "a reward", async () =>
        as("POST", "/api/v1/loyalty/redeem", { member_id: (await loyaltyMember()).member_id, reward_id: await loyaltyReward(), notes: "spa at 5", external_reference_id: uniqueId("R") })),
      c(400, "both reward_id and points", () => as("POST", "/api/v1/loyalty/redeem", { member_id: NO_SUCH_ID, reward_id: NO_SUCH_ID, points: 5, external_reference_id: "x" })),
      c(404, "an unknown reward", async () =>
        as("POST", "/api/v1/loyalty/redeem", { member_id: (await loyaltyMember()).member_id, reward_id: NO_SUCH_ID, external_reference_id: uniqueId("R") })),
      c(409, "more points than the member has", async () =>
        as("POST", "/api/v1/loyalty/redeem", { member_id: (await loyaltyMember(5)).member_id, points: 6, external_reference_id: uniqueId("R") })),
      ...keyCases("POST", "/api/v1/loyalty/redeem", {})
    ],
    notCaused: ACTOR_FAILURES
  }
}

/** The journeys family's routes (kept apart, as the loyalty ones). */
const NO_BODY_422 = "documented by the group's JourneyValidationErrors (a definition body failing its schema is 422), but the route reads no body"
const journeyBody = (overrides: Record<string, unknown> = {}) => ({
  name: "OpenAPI journey", trigger: { type: "event", event: "booking.created" },
  steps: [{ id: "w", type: "wait", duration: "PT1H" }, { id: "e", type: "email", category: "utility", subject: "Hi {{contact_first_name}}", text: "x" }], ...overrides
})
const newJourney = async (overrides: Record<string, unknown> = {}) => (await data(as("POST", "/api/v1/journeys", journeyBody(overrides)))).journey_id as string
const archivedJourney = async () => {
  const id = await newJourney()
  await data(as("POST", `/api/v1/journeys/${id}/archive`))
  return id
}
/** A run as the journey actor writes it (the actor is another piece of work): inserted here. */
const newRun = async () => {
  const journeyId = await newJourney()
  const contactId = (await newGuest()).contact_id as string
  const id = crypto.randomUUID()
  await sql`INSERT INTO journey_runs (id, tenant_id, sandbox, journey_id, version, contact_id, scope, state, trigger, started_at, ended_at, exit_reason, updated_at)
    VALUES (${id}, ${tenant.tenant_id}, false, ${journeyId}, 1, ${contactId}, 'event:openapi', 'stopped',
      ${sql.json({ event_id: "ev", event_name: "booking.created", occurred_at: "2026-11-20T10:00:00Z", payload: {}, origin: "core", source: null })}, now(), now(), 'manual', now())`
  await sql`INSERT INTO journey_run_steps (run_id, seq, tenant_id, step_id, step_type, outcome, at) VALUES (${id}, 0, ${tenant.tenant_id}, 'w', 'wait', 'waited', now())`
  return { id, journeyId }
}
const journeyRoutes: Record<string, RouteCases> = {
  "POST /api/v1/journeys": {
    cases: [
      c(201, "a draft", () => as("POST", "/api/v1/journeys", journeyBody())),
      c(400, "a body that is not JSON (the router's 400)", () => call("POST", "/api/v1/journeys", { key: tenant.live_key, raw: "{" })),
      c(422, "an unknown step type (the schema)", () => as("POST", "/api/v1/journeys", journeyBody({ steps: [{ id: "s", type: "sms" }] }))),
      c(422, "an unknown merge tag (the definition check)", () =>
        as("POST", "/api/v1/journeys", journeyBody({ steps: [{ id: "e", type: "email", category: "utility", subject: "{{event_resum_url}}", text: "x" }] }))),
      ...keyCases("POST", "/api/v1/journeys", journeyBody())
    ]
  },
  "GET /api/v1/journeys": {
    cases: [
      c(200, "the journeys", async () => {
        await newJourney()
        return as("GET", "/api/v1/journeys?limit=5&status=draft")
      }),
      c(400, "a status that is none", () => as("GET", "/api/v1/journeys?status=sleeping")),
      ...keyCases("GET", "/api/v1/journeys")
    ],
    notCaused: { 422: NO_BODY_422 }
  },
  "GET /api/v1/journeys/{id}": {
    cases: [
      c(200, "a journey", async () => as("GET", `/api/v1/journeys/${await newJourney()}`)),
      c(404, "an unknown journey", () => as("GET", `/api/v1/journeys/${NO_SUCH_ID}`)),
      nulParam("GET", "/api/v1/journeys/%00"),
      ...keyCases("GET", `/api/v1/journeys/${NO_SUCH_ID}`)
    ],
    notCaused: { 422: NO_BODY_422 }
  },
  "PATCH /api/v1/journeys/{id}": {
    cases: [
      c(200, "a new version", async () => as("PATCH", `/api/v1/journeys/${await newJourney()}`, { name: "Renamed" })),
      c(400, "a body that is not JSON", () => call("PATCH", `/api/v1/journeys/${NO_SUCH_ID}`, { key: tenant.live_key, raw: "{" })),
      c(404, "an unknown journey", () => as("PATCH", `/api/v1/journeys/${NO_SUCH_ID}`, { name: "x" })),
      c(409, "an archived journey", async () => as("PATCH", `/api/v1/journeys/${await archivedJourney()}`, { name: "x" })),
      c(412, "If-Match naming another version", async () =>
        call("PATCH", `/api/v1/journeys/${await newJourney()}`, { key: tenant.live_key, body: { name: "x" }, headers: { "if-match": "\"v7\"" } })),
      c(422, "a wait out of range", async () => as("PATCH", `/api/v1/journeys/${await newJourney()}`, { steps: [{ id: "w", type: "wait", duration: "PT0S" }] })),
      ...keyCases("PATCH", `/api/v1/journeys/${NO_SUCH_ID}`, { name: "x" })
    ]
  },
  ...Object.fromEntries((["activate", "pause", "archive"] as const).map((action) => [`POST /api/v1/journeys/{id}/${action}`, {
    cases: [
      c(200, "a status change", async () => {
        const id = await newJourney()
        if (action === "pause") await data(as("POST", `/api/v1/journeys/${id}/activate`))
        return as("POST", `/api/v1/journeys/${id}/${action}`)
      }),
      c(404, "an unknown journey", () => as("POST", `/api/v1/journeys/${NO_SUCH_ID}/${action}`)),
      nulParam("POST", `/api/v1/journeys/%00/${action}`),
      ...(action === "archive" ? [] : [c(409, "an archived journey", async () => as("POST", `/api/v1/journeys/${await archivedJourney()}/${action}`))]),
      ...(action === "activate"
        ? [c(422, "a template unregistered since the save (checked again)", async () => {
          await configureWhatsApp()
          const step = { id: "wa", type: "whatsapp", category: "utility", template: "booking_confirmation", language: "es", params: ["contact.first_name", "event.name"] }
          const { journey_id } = await data(onChannels("POST", "/api/v1/journeys", journeyBody({ steps: [step] })))
          await data(onChannels("DELETE", "/api/v1/channels/whatsapp/templates/booking_confirmation/es"))
          return onChannels("POST", `/api/v1/journeys/${journey_id}/activate`)
        })]
        : []),
      ...keyCases("POST", `/api/v1/journeys/${NO_SUCH_ID}/${action}`)
    ],
    notCaused: Object.fromEntries([
      ...(action === "archive" ? [[409, "archive takes any status (an archived journey answers 200 as it is)"]] : []),
      ...(action === "activate" ? [] : [[422, "only activate checks the definition against the account again"]])
    ])
  } satisfies RouteCases])),
  "GET /api/v1/journeys/{id}/runs": {
    cases: [
      c(200, "a journey's runs", async () => as("GET", `/api/v1/journeys/${(await newRun()).journeyId}/runs?state=stopped`)),
      c(400, "a state that is none", () => as("GET", `/api/v1/journeys/${NO_SUCH_ID}/runs?state=sleeping`)),
      c(404, "an unknown journey", () => as("GET", `/api/v1/journeys/${NO_SUCH_ID}/runs`)),
      ...keyCases("GET", `/api/v1/journeys/${NO_SUCH_ID}/runs`)
    ],
    notCaused: { 422: NO_BODY_422 }
  },
  "GET /api/v1/journey-runs/{run_id}": {
    cases: [
      c(200, "a run with its steps", async () => as("GET", `/api/v1/journey-runs/${(await newRun()).id}`)),
      c(404, "an unknown run", () => as("GET", `/api/v1/journey-runs/${NO_SUCH_ID}`)),
      nulParam("GET", "/api/v1/journey-runs/%00"),
      ...keyCases("GET", `/api/v1/journey-runs/${NO_SUCH_ID}`)
    ],
    notCaused: { 422: NO_BODY_422 }
  },
  "POST /api/v1/journey-runs/{run_id}/stop": {
    cases: [
      c(200, "a waiting run stopped by the journey actor", async () => {
        const event = uniqueId("oa").toLowerCase().replace(/[^a-z0-9]/g, "_")
        const journeyId = await newJourney({ status: "active", trigger: { type: "event", event: `oa.${event}` } })
        const contactId = (await newGuest()).contact_id as string
        await data(as("POST", "/api/v1/events", { event_type: `oa.${event}`, payload: {}, contact_id: contactId }))
        for (let i = 0; i < 100; i++) {
          const [run] = await sql`SELECT id FROM journey_runs WHERE journey_id = ${journeyId} AND state = 'waiting'`
          if (run) return as("POST", `/api/v1/journey-runs/${run.id}/stop`)
          await new Promise((r) => setTimeout(r, 100))
        }
        throw new Error("no waiting run")
      }),
      c(404, "an unknown run", () => as("POST", `/api/v1/journey-runs/${NO_SUCH_ID}/stop`)),
      nulParam("POST", "/api/v1/journey-runs/%00/stop"),
      ...keyCases("POST", `/api/v1/journey-runs/${NO_SUCH_ID}/stop`)
    ],
    notCaused: {
      ...ACTOR_FAILURES,
      422: "an actor rejecting the stop for its data: needs a poisoned actor, as ACTOR_FAILURES"
    }
  }
}

/** Credit holds, reversals, actions, free nights and the loyalty reports. */
const loyaltyHold = async (points = 100) => {
  const m = await loyaltyMember()
  const reservation_id = uniqueId("RES")
  const hold = await data(as("POST", "/api/v1/loyalty/credit/hold", { member_id: m.member_id, reservation_id, points, external_reference_id: uniqueId("H") }))
  return { ...m, reservation_id, hold_id: hold.hold_id as string }
}
const loyaltyFreeNight = async () =>
  (await data(as("POST", "/api/v1/loyalty/rewards", { name: "Night", type: "free_night", points_cost: 100, auto_fulfill: false }))).reward_id as string
const loyaltyCreditRoutes: Record<string, RouteCases> = {
  "GET /api/v1/loyalty/credit/quote": {
    cases: [
      c(200, "a member's credit", async () => {
        await loyaltyProgram()
        return as("GET", `/api/v1/loyalty/credit/quote?member_id=${(await loyaltyMember()).member_id}&amount=5&currency=EUR`)
      }),
      c(400, "a negative amount", () => as("GET", `/api/v1/loyalty/credit/quote?member_id=${NO_SUCH_ID}&amount=-5`)),
      c(404, "an unknown member", () => as("GET", `/api/v1/loyalty/credit/quote?member_id=${NO_SUCH_ID}`)),
      c(422, "another currency", async () => as("GET", `/api/v1/loyalty/credit/quote?member_id=${(await loyaltyMember()).member_id}&currency=GBP`)),
      ...keyCases("GET", `/api/v1/loyalty/credit/quote?member_id=${NO_SUCH_ID}`)
    ]
  },
  "POST /api/v1/loyalty/credit/hold": {
    cases: [
      c(201, "a new hold", async () => {
        await loyaltyProgram()
        return as("POST", "/api/v1/loyalty/credit/hold", { member_id: (await loyaltyMember()).member_id, reservation_id: uniqueId("RES"), amount: 2, currency: "EUR", external_reference_id: uniqueId("H") })
      }),
      c(200, "a retried key", async () => {
        const m = await loyaltyMember()
        const body = { member_id: m.member_id, reservation_id: uniqueId("RES"), points: 10, external_reference_id: uniqueId("H") }
        await data(as("POST", "/api/v1/loyalty/credit/hold", body))
        return as("POST", "/api/v1/loyalty/credit/hold", body)
      }),
      c(400, "no retry key", () => as("POST", "/api/v1/loyalty/credit/hold", { member_id: NO_SUCH_ID, reservation_id: "R", points: 5 })),
      c(404, "an unknown member", () => as("POST", "/api/v1/loyalty/credit/hold", { member_id: NO_SUCH_ID, reservation_id: "R", points: 5, external_reference_id: uniqueId("H") })),
      c(409, "more points than the member has", async () =>
        as("POST", "/api/v1/loyalty/credit/hold", { member_id: (await loyaltyMember(5)).member_id, reservation_id: "R", points: 6, external_reference_id: uniqueId("H") })),
      c(422, "another currency", async () =>
        as("POST", "/api/v1/loyalty/credit/hold", { member_id: (await loyaltyMember()).member_id, reservation_id: "R", amount: 1, currency: "GBP", external_reference_id: uniqueId("H") })),
      ...keyCases("POST", "/api/v1/loyalty/credit/hold", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/credit/confirm": {
    cases: [
      c(200, "an active hold", async () => as("POST", "/api/v1/loyalty/credit/confirm", { hold_id: (await loyaltyHold()).hold_id })),
      c(400, "neither hold_id nor key", () => as("POST", "/api/v1/loyalty/credit/confirm", {})),
      c(404, "an unknown hold", () => as("POST", "/api/v1/loyalty/credit/confirm", { hold_id: NO_SUCH_ID })),
      c(409, "a released hold", async () => {
        const { hold_id } = await loyaltyHold()
        await data(as("POST", "/api/v1/loyalty/credit/release", { hold_id }))
        return as("POST", "/api/v1/loyalty/credit/confirm", { hold_id })
      }),
      ...keyCases("POST", "/api/v1/loyalty/credit/confirm", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/credit/release": {
    cases: [
      c(200, "an active hold", async () => as("POST", "/api/v1/loyalty/credit/release", { hold_id: (await loyaltyHold()).hold_id })),
      c(200, "no hold at all", () => as("POST", "/api/v1/loyalty/credit/release", { reservation_id: uniqueId("NONE") })),
      c(400, "two ways to name the hold", () => as("POST", "/api/v1/loyalty/credit/release", { hold_id: NO_SUCH_ID, reservation_id: "R" })),
      ...keyCases("POST", "/api/v1/loyalty/credit/release", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/credit/reverse": {
    cases: [
      c(200, "a confirmed hold", async () => {
        const { hold_id } = await loyaltyHold()
        await data(as("POST", "/api/v1/loyalty/credit/confirm", { hold_id }))
        return as("POST", "/api/v1/loyalty/credit/reverse", { hold_id, reason: "cancelled" })
      }),
      c(400, "neither hold_id nor reservation_id", () => as("POST", "/api/v1/loyalty/credit/reverse", {})),
      c(404, "an unknown hold", () => as("POST", "/api/v1/loyalty/credit/reverse", { hold_id: NO_SUCH_ID })),
      c(409, "an active hold", async () => as("POST", "/api/v1/loyalty/credit/reverse", { reservation_id: (await loyaltyHold()).reservation_id })),
      ...keyCases("POST", "/api/v1/loyalty/credit/reverse", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/reverse": {
    cases: [
      c(200, "an earn", async () => {
        const earned = await data(as("POST", "/api/v1/loyalty/points", { member_id: (await loyaltyMember()).member_id, points: 5, external_reference_id: uniqueId("E") }))
        return as("POST", "/api/v1/loyalty/reverse", { transaction_id: earned.transaction_id, reason: "cancellation" })
      }),
      c(400, "an unknown reason", () => as("POST", "/api/v1/loyalty/reverse", { transaction_id: NO_SUCH_ID, reason: "whim" })),
      c(404, "an unknown earn", () => as("POST", "/api/v1/loyalty/reverse", { transaction_id: NO_SUCH_ID })),
      ...keyCases("POST", "/api/v1/loyalty/reverse", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/actions": {
    cases: [
      c(200, "a review", async () => as("POST", "/api/v1/loyalty/actions", { member_id: (await loyaltyMember()).member_id, action_type: "review", scope_key: "RES-1", points: 50, external_reference_id: uniqueId("A") })),
      c(400, "an action type with spaces", () => as("POST", "/api/v1/loyalty/actions", { member_id: NO_SUCH_ID, action_type: "a b", points: 5, external_reference_id: "k" })),
      c(404, "an unknown member", () => as("POST", "/api/v1/loyalty/actions", { member_id: NO_SUCH_ID, action_type: "review", scope_key: "RES-1", points: 5, external_reference_id: uniqueId("A") })),
      c(409, "a key reused with other points", async () => {
        const m = await loyaltyMember()
        const key = uniqueId("A")
        await data(as("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "survey", scope_key: "S-1", points: 5, external_reference_id: key }))
        return as("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "survey", scope_key: "S-1", points: 6, external_reference_id: key })
      }),
      c(409, "a second app_download (once per member)", async () => {
        const m = await loyaltyMember()
        await data(as("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "app_download", points: 5, external_reference_id: uniqueId("A") }))
        return as("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "app_download", points: 5, external_reference_id: uniqueId("A") })
      }),
      ...keyCases("POST", "/api/v1/loyalty/actions", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/redeem-free-night": {
    cases: [
      c(200, "a voucher", async () => as("POST", "/api/v1/loyalty/redeem-free-night", {
        member_id: (await loyaltyMember()).member_id, reward_id: await loyaltyFreeNight(), nights: 2, delivery_method: "voucher", external_reference_id: uniqueId("F")
      })),
      c(400, "an unknown delivery method", () => as("POST", "/api/v1/loyalty/redeem-free-night", { member_id: NO_SUCH_ID, reward_id: NO_SUCH_ID, delivery_method: "fax" })),
      c(404, "an unknown reward", async () => as("POST", "/api/v1/loyalty/redeem-free-night", {
        member_id: (await loyaltyMember()).member_id, reward_id: NO_SUCH_ID, delivery_method: "manual", external_reference_id: uniqueId("F")
      })),
      c(409, "more nights than the points", async () => as("POST", "/api/v1/loyalty/redeem-free-night", {
        member_id: (await loyaltyMember(50)).member_id, reward_id: await loyaltyFreeNight(), delivery_method: "manual", external_reference_id: uniqueId("F")
      })),
      c(501, "engine_api delivery", () => as("POST", "/api/v1/loyalty/redeem-free-night", { member_id: NO_SUCH_ID, reward_id: NO_SUCH_ID, delivery_method: "engine_api" })),
      ...keyCases("POST", "/api/v1/loyalty/redeem-free-night", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/loyalty/calculate": {
    cases: [
      c(200, "a stay", async () => {
        await loyaltyProgram()
        return as("POST", "/api/v1/loyalty/calculate", { member_id: (await loyaltyMember()).member_id, amount: 120, currency: "EUR", nights: 1 })
      }),
      c(400, "a negative amount", () => as("POST", "/api/v1/loyalty/calculate", { amount: -1, currency: "EUR" })),
      c(404, "an unknown member", () => as("POST", "/api/v1/loyalty/calculate", { member_id: NO_SUCH_ID, amount: 1, currency: "EUR" })),
      c(422, "another currency", () => as("POST", "/api/v1/loyalty/calculate", { amount: 1, currency: "GBP" })),
      ...keyCases("POST", "/api/v1/loyalty/calculate", {})
    ]
  },
  "POST /api/v1/loyalty/households": {
    cases: [
      c(200, "a new household", async () => as("POST", "/api/v1/loyalty/households", { action: "create", member_id: (await loyaltyMember()).member_id, name: "Family" })),
      c(400, "an unknown action", () => as("POST", "/api/v1/loyalty/households", { action: "dance" })),
      c(404, "an unknown household", () => as("POST", "/api/v1/loyalty/households", { action: "add_member", household_id: NO_SUCH_ID, member_id: NO_SUCH_ID })),
      c(409, "an owner already in a household", async () => {
        const m = await loyaltyMember()
        await data(as("POST", "/api/v1/loyalty/households", { action: "create", member_id: m.member_id, name: "One" }))
        return as("POST", "/api/v1/loyalty/households", { action: "create", member_id: m.member_id, name: "Two" })
      }),
      ...keyCases("POST", "/api/v1/loyalty/households", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/v1/loyalty/households": {
    cases: [
      c(200, "a member's household", async () => {
        const m = await loyaltyMember()
        await data(as("POST", "/api/v1/loyalty/households", { action: "create", member_id: m.member_id, name: "Three" }))
        return as("GET", `/api/v1/loyalty/households?member_id=${m.member_id}`)
      }),
      c(400, "a household_id that is no UUID", () => as("GET", "/api/v1/loyalty/households?household_id=x")),
      c(404, "an unknown household", () => as("GET", `/api/v1/loyalty/households?household_id=${NO_SUCH_ID}`)),
      ...keyCases("GET", `/api/v1/loyalty/households?household_id=${NO_SUCH_ID}`)
    ]
  },
  "GET /api/v1/loyalty/liability": {
    cases: [c(200, "the liability", () => as("GET", "/api/v1/loyalty/liability")), ...keyCases("GET", "/api/v1/loyalty/liability")],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "GET /api/v1/loyalty/reservation-snapshot": {
    cases: [
      c(200, "a reservation with a hold", async () => as("GET", `/api/v1/loyalty/reservation-snapshot?reservation_id=${(await loyaltyHold()).reservation_id}`)),
      c(400, "no reservation_id", () => as("GET", "/api/v1/loyalty/reservation-snapshot")),
      c(404, "a reservation without loyalty activity", () => as("GET", `/api/v1/loyalty/reservation-snapshot?reservation_id=${uniqueId("NONE")}`)),
      ...keyCases("GET", "/api/v1/loyalty/reservation-snapshot?reservation_id=x")
    ]
  },
  "POST /api/v1/loyalty/experiences": {
    cases: [
      c(201, "an experience", () => as("POST", "/api/v1/loyalty/experiences", loyaltyExperienceBody())),
      c(400, "an end in the past", () => as("POST", "/api/v1/loyalty/experiences", { ...loyaltyExperienceBody(), ends_at: "2020-01-01T00:00:00Z" })),
      ...keyCases("POST", "/api/v1/loyalty/experiences", {})
    ]
  },
  "POST /api/v1/loyalty/experiences/bid": {
    cases: [
      c(200, "a leading bid", async () => as("POST", "/api/v1/loyalty/experiences/bid", {
        member_id: (await loyaltyMember()).member_id, experience_id: await loyaltyExperience(), bid_points: 100, external_reference_id: uniqueId("B")
      })),
      c(400, "a bid of 0 points", () => as("POST", "/api/v1/loyalty/experiences/bid", { member_id: NO_SUCH_ID, experience_id: NO_SUCH_ID, bid_points: 0 })),
      c(404, "an unknown experience", async () => as("POST", "/api/v1/loyalty/experiences/bid", {
        member_id: (await loyaltyMember()).member_id, experience_id: NO_SUCH_ID, bid_points: 100, external_reference_id: uniqueId("B")
      })),
      c(409, "a bid below the starting bid", async () => as("POST", "/api/v1/loyalty/experiences/bid", {
        member_id: (await loyaltyMember()).member_id, experience_id: await loyaltyExperience(), bid_points: 99, external_reference_id: uniqueId("B")
      })),
      ...keyCases("POST", "/api/v1/loyalty/experiences/bid", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/v1/loyalty/experiences/{experience_id}": {
    cases: [
      c(200, "an experience", async () => as("GET", `/api/v1/loyalty/experiences/${await loyaltyExperience()}`)),
      c(400, "an id that is no UUID", () => as("GET", "/api/v1/loyalty/experiences/x")),
      c(404, "an unknown experience", () => as("GET", `/api/v1/loyalty/experiences/${NO_SUCH_ID}`)),
      ...keyCases("GET", `/api/v1/loyalty/experiences/${NO_SUCH_ID}`)
    ]
  }
}

/** The website sources routes (kept apart, as the loyalty ones). */
const websiteSource = async () =>
  (await as("POST", "/api/v1/website-sources", { name: "OpenAPI site", allowed_origins: ["https://shop.hotel-guests.net"] })).body as { source_id: string }
const W = "/api/v1/website-sources"
const websiteRoutes: Record<string, RouteCases> = {
  [`POST ${W}`]: {
    cases: [
      c(201, "a source and its three credentials", () => as("POST", W, { name: "Site", allowed_origins: ["https://shop.hotel-guests.net"], signing: true })),
      c(400, "a wildcard origin", () => as("POST", W, { name: "Site", allowed_origins: ["https://*.hotel.com"] })),
      ...keyCases("POST", W, { name: "Site", allowed_origins: [] })
    ]
  },
  [`GET ${W}`]: { cases: [c(200, "the sources", () => as("GET", W)), ...keyCases("GET", W)], notCaused: { 400: "no parameter to refuse" } },
  [`GET ${W}/{id}`]: {
    cases: [
      c(200, "a source", async () => as("GET", `${W}/${(await websiteSource()).source_id}`)),
      c(404, "an unknown source", () => as("GET", `${W}/${NO_SUCH_ID}`)),
      nulParam("GET", `${W}/%00`),
      ...keyCases("GET", `${W}/${NO_SUCH_ID}`)
    ]
  },
  [`PATCH ${W}/{id}`]: {
    cases: [
      c(200, "paused", async () => as("PATCH", `${W}/${(await websiteSource()).source_id}`, { enabled: false })),
      c(400, "an unknown mapping target", async () => as("PATCH", `${W}/${(await websiteSource()).source_id}`, { mapping: { shoe: { path: "a" } } })),
      c(404, "an unknown source", () => as("PATCH", `${W}/${NO_SUCH_ID}`, { enabled: false })),
      ...keyCases("PATCH", `${W}/${NO_SUCH_ID}`, { enabled: false })
    ]
  },
  [`DELETE ${W}/{id}`]: {
    cases: [
      c(200, "deleted", async () => as("DELETE", `${W}/${(await websiteSource()).source_id}`)),
      c(404, "an unknown source", () => as("DELETE", `${W}/${NO_SUCH_ID}`)),
      nulParam("DELETE", `${W}/%00`),
      ...keyCases("DELETE", `${W}/${NO_SUCH_ID}`)
    ]
  },
  [`POST ${W}/{id}/keys`]: {
    cases: [
      c(201, "a second browser key", async () => as("POST", `${W}/${(await websiteSource()).source_id}/keys`, { kind: "browser" })),
      c(400, "an unknown kind", () => as("POST", `${W}/${NO_SUCH_ID}/keys`, { kind: "admin" })),
      c(404, "an unknown source", () => as("POST", `${W}/${NO_SUCH_ID}/keys`, { kind: "server" })),
      c(409, "a third live key", async () => {
        const { source_id } = await websiteSource()
        await as("POST", `${W}/${source_id}/keys`, { kind: "server" })
        return as("POST", `${W}/${source_id}/keys`, { kind: "server" })
      }),
      ...keyCases("POST", `${W}/${NO_SUCH_ID}/keys`, { kind: "server" })
    ]
  },
  [`DELETE ${W}/{id}/keys/{key_id}`]: {
    cases: [
      c(200, "a key revoked", async () => {
        const { source_id } = await websiteSource()
        const view = await as("GET", `${W}/${source_id}`)
        return as("DELETE", `${W}/${source_id}/keys/${view.body.keys[0].key_id}`)
      }),
      c(404, "an unknown key", async () => as("DELETE", `${W}/${(await websiteSource()).source_id}/keys/${NO_SUCH_ID}`)),
      nulParam("DELETE", `${W}/%00/keys/x`),
      ...keyCases("DELETE", `${W}/${NO_SUCH_ID}/keys/${NO_SUCH_ID}`)
    ]
  },
  [`POST ${W}/{id}/rotate-signing-secret`]: {
    cases: [
      c(200, "a new secret", async () => as("POST", `${W}/${(await websiteSource()).source_id}/rotate-signing-secret`)),
      c(404, "an unknown source", () => as("POST", `${W}/${NO_SUCH_ID}/rotate-signing-secret`)),
      nulParam("POST", `${W}/%00/rotate-signing-secret`),
      ...keyCases("POST", `${W}/${NO_SUCH_ID}/rotate-signing-secret`)
    ]
  },
  [`GET ${W}/{id}/deliveries`]: {
    cases: [
      c(200, "the delivery log", async () => as("GET", `${W}/${(await websiteSource()).source_id}/deliveries?limit=5`)),
      c(400, "a limit out of range", async () => as("GET", `${W}/${(await websiteSource()).source_id}/deliveries?limit=500`)),
      c(404, "an unknown source", () => as("GET", `${W}/${NO_SUCH_ID}/deliveries`)),
      ...keyCases("GET", `${W}/${NO_SUCH_ID}/deliveries`)
    ]
  },
  [`GET ${W}/{id}/events`]: {
    cases: [
      c(200, "the catalogue", async () => as("GET", `${W}/${(await websiteSource()).source_id}/events`)),
      c(404, "an unknown source", () => as("GET", `${W}/${NO_SUCH_ID}/events`)),
      nulParam("GET", `${W}/%00/events`),
      ...keyCases("GET", `${W}/${NO_SUCH_ID}/events`)
    ]
  },
  [`POST ${W}/{id}/events`]: {
    cases: [
      c(201, "a declared event", async () => as("POST", `${W}/${(await websiteSource()).source_id}/events`, { name: "voucher.viewed" })),
      c(400, "a name that is not a dotted lowercase name", () => as("POST", `${W}/${NO_SUCH_ID}/events`, { name: "Voucher Viewed" })),
      c(404, "an unknown source", () => as("POST", `${W}/${NO_SUCH_ID}/events`, { name: "voucher.viewed" })),
      ...keyCases("POST", `${W}/${NO_SUCH_ID}/events`, { name: "voucher.viewed" })
    ]
  }
}

/** The CDP routes (kept apart, as the website ones). */
const CDP = "/api/v1/cdp"
const cdpVisit = () => ({ visitor_id: uniqueId("v"), session_id: uniqueId("s"), events: [{ type: "page_view", url: "https://hotel.com/x", ts: new Date().toISOString() }] })
const cdpReservation = (overrides: Record<string, unknown> = {}) => reservation({ hotel_code: tenant.hotel_code }, { visitor_id: uniqueId("v"), cart_id: uniqueId("c"), ...overrides })
const cdpRoutes: Record<string, RouteCases> = {
  [`GET ${CDP}/settings`]: { cases: [c(200, "the settings", () => as("GET", `${CDP}/settings`)), ...keyCases("GET", `${CDP}/settings`)], notCaused: { 400: NOTHING_TO_VALIDATE } },
  [`PATCH ${CDP}/settings`]: {
    cases: [
      c(200, "tracking on", () => as("PATCH", `${CDP}/settings`, { visitor_tracking: true })),
      c(400, "a domain with a scheme", () => as("PATCH", `${CDP}/settings`, { allowed_domains: ["https://hotel.com"] })),
      ...keyCases("PATCH", `${CDP}/settings`, {})
    ]
  },
  [`POST ${CDP}/events`]: {
    cases: [
      c(202, "a visit's events", async () => {
        await data(as("PATCH", `${CDP}/settings`, { visitor_tracking: true }))
        return as("POST", `${CDP}/events`, cdpVisit())
      }),
      c(400, "no events", () => as("POST", `${CDP}/events`, { ...cdpVisit(), events: [] })),
      c(403, "an Origin outside the allowed domains", async () => {
        await data(onChannels("PATCH", `${CDP}/settings`, { visitor_tracking: true, allowed_domains: ["hotel.com"] }))
        return call("POST", `${CDP}/events`, { key: channelsTenant.live_key, body: cdpVisit(), headers: { origin: "https://other.example" } })
      }),
      ...keyCases("POST", `${CDP}/events`, cdpVisit())
    ],
    notCaused: ACTOR_FAILURES
  },
  [`POST ${CDP}/identify`]: {
    cases: [
      c(200, "a visitor linked", () => as("POST", `${CDP}/identify`, { visitor_id: uniqueId("v"), email: `${uniqueId("cdp")}@gmail.com` })),
      c(400, "neither email nor phone", () => as("POST", `${CDP}/identify`, { visitor_id: "v" })),
      c(422, "an email that is no address", () => as("POST", `${CDP}/identify`, { visitor_id: "v", email: "nope" })),
      ...keyCases("POST", `${CDP}/identify`, {})
    ],
    notCaused: ACTOR_FAILURES
  },
  [`POST ${CDP}/reservations`]: {
    cases: [
      c(201, "a new reservation with its visit", () => as("POST", `${CDP}/reservations`, cdpReservation())),
      c(200, "the same reservation again", async () => {
        const body = cdpReservation()
        await data(as("POST", `${CDP}/reservations`, body))
        return as("POST", `${CDP}/reservations`, { ...body, status: "modified" })
      }),
      c(400, "a bad utm", () => as("POST", `${CDP}/reservations`, cdpReservation({ utm: { source: 1 } }))),
      c(422, "an unknown hotel_code", () => as("POST", `${CDP}/reservations`, { ...cdpReservation(), hotel_code: "NO-SUCH-HOTEL" })),
      ...keyCases("POST", `${CDP}/reservations`, {})
    ],
    notCaused: ACTOR_FAILURES
  },
  [`POST ${CDP}/reservations/batch`]: {
    cases: [
      c(200, "one good and one bad item", () => as("POST", `${CDP}/reservations/batch`, { reservations: [cdpReservation(), { reservation_id: "x" }] })),
      c(400, "an empty batch", () => as("POST", `${CDP}/reservations/batch`, { reservations: [] })),
      ...keyCases("POST", `${CDP}/reservations/batch`, { reservations: [] })
    ],
    notCaused: { 503: ACTOR_FAILURES[503] }
  },
  [`POST ${CDP}/reservations/bulk`]: {
    cases: [
      c(202, "a bulk job", () => as("POST", `${CDP}/reservations/bulk`, { reservations: [cdpReservation(), { reservation_id: "x" }] })),
      c(400, "an empty job", () => as("POST", `${CDP}/reservations/bulk`, { reservations: [] })),
      ...keyCases("POST", `${CDP}/reservations/bulk`, { reservations: [] })
    ],
    notCaused: { 503: "the database away while the job is stored, which the chaos tests cover" }
  },
  [`GET ${CDP}/batches/{id}`]: {
    cases: [
      c(200, "a job's status", async () => as("GET", `${CDP}/batches/${(await data(as("POST", `${CDP}/reservations/bulk`, { reservations: [cdpReservation()] }))).batch_id}`)),
      c(404, "an unknown batch", () => as("GET", `${CDP}/batches/bat_nope`)),
      nulParam("GET", `${CDP}/batches/%00`),
      ...keyCases("GET", `${CDP}/batches/bat_nope`)
    ]
  }
}

/** Loyalty SSO: the clients API, the member's and the club's routes, oidc-provider's endpoints and the sign-in pages. */
const SSO_REDIRECT = "http://127.0.0.1/cb"
const sso = { limitedClub: { client_id: "", client_secret: "" } }
const asResult = resultOf
const memberToken = async () => (await memberAccessToken(platform.baseUrl, tenant.live_key, sql)).access_token
/** A member whose member-route budget is used up: a request with their token is over the limit. */
const overLimitMember = async () => {
  const m = await memberAccessToken(platform.baseUrl, tenant.live_key, sql)
  await exhaust(`sso-member:${tenant.tenant_id}:${m.memberId}`)
  return m.access_token
}
const MEMBER_LIMIT = { 429: "the same per-member limiter as GET /api/loyalty/me/balance's case" } as const
const ssoClient = () => newClient(platform.baseUrl, tenant.live_key, SSO_REDIRECT, "http://127.0.0.1/bye")
const withMember = (method: string, path: string, token?: string, query = "") => async () =>
  call(method, path + query, { key: token ?? await memberToken() })
const clubCall = (rp: { client_id: string; client_secret: string }, method: string, path: string, o: { body?: unknown; bearer?: string } = {}) =>
  call(method, path, { headers: { "x-client-id": rp.client_id, "x-client-secret": rp.client_secret, ...(o.bearer ? { authorization: `Bearer ${o.bearer}` } : {}) }, ...(o.body === undefined ? {} : { body: o.body }) })
const ssoPage = async () => {
  const b = browser()
  const { challenge } = await pkce()
  return { b, ...(await startInteraction(b, platform.baseUrl, (await ssoClient()).client_id, challenge)) }
}
const oidcForm = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${platform.baseUrl}${path}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(form) }).then(asResult)
const oidcGet = (path: string) => fetch(`${platform.baseUrl}${path}`, { redirect: "manual" }).then(asResult)
const ssoRoutes: Record<string, RouteCases> = {
  "POST /api/v1/oidc/clients": {
    cases: [
      c(201, "a relying party", () => as("POST", "/api/v1/oidc/clients", { name: "Hotel site", redirect_uris: [SSO_REDIRECT] })),
      c(400, "a redirect URI that is not a URL", () => as("POST", "/api/v1/oidc/clients", { name: "Hotel site", redirect_uris: ["not a url"] })),
      ...keyCases("POST", "/api/v1/oidc/clients", { name: "x", redirect_uris: [SSO_REDIRECT] })
    ]
  },
  "GET /api/loyalty/me/balance": {
    cases: [
      c(200, "the member's tier and points", withMember("GET", "/api/loyalty/me/balance")),
      c(401, "no access token", () => call("GET", "/api/loyalty/me/balance")),
      c(429, "a member over the member routes' limit", async () => call("GET", "/api/loyalty/me/balance", { key: await overLimitMember() }))
    ],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "GET /api/loyalty/me/transactions": {
    cases: [
      c(200, "the member's history", withMember("GET", "/api/loyalty/me/transactions")),
      c(400, "limit 0", withMember("GET", "/api/loyalty/me/transactions", undefined, "?limit=0")),
      c(401, "an API key is not a member's token", () => call("GET", "/api/loyalty/me/transactions", { key: tenant.live_key }))
    ],
    notCaused: MEMBER_LIMIT
  },
  "POST /api/loyalty/me/club-code": {
    cases: [c(201, "a one-time club code", withMember("POST", "/api/loyalty/me/club-code")), c(401, "no access token", () => call("POST", "/api/loyalty/me/club-code"))],
    notCaused: { 400: NOTHING_TO_VALIDATE, ...MEMBER_LIMIT }
  },
  "POST /api/loyalty/club/exchange": {
    cases: [
      c(200, "a fresh code", async () => {
        const m = await memberAccessToken(platform.baseUrl, tenant.live_key, sql)
        const code = (await call("POST", "/api/loyalty/me/club-code", { key: m.access_token })).body.data.code
        return clubCall(m.client, "POST", "/api/loyalty/club/exchange", { body: { code } })
      }),
      c(400, "an unknown code", async () => clubCall(await ssoClient(), "POST", "/api/loyalty/club/exchange", { body: { code: "clubc_nothing" } })),
      c(401, "a wrong client secret", async () => clubCall({ ...(await ssoClient()), client_secret: "wrong" }, "POST", "/api/loyalty/club/exchange", { body: { code: "x" } })),
      c(429, "a club client over its rate limit", () => clubCall(sso.limitedClub, "POST", "/api/loyalty/club/exchange", { body: { code: "x" } }))
    ]
  },
  "GET /api/loyalty/club/me": {
    cases: [
      c(200, "the member of a transfer token", async () => {
        const m = await memberAccessToken(platform.baseUrl, tenant.live_key, sql)
        return clubCall(m.client, "GET", "/api/loyalty/club/me", { bearer: await transferToken(platform.baseUrl, m.access_token, m.client) })
      }),
      c(401, "no transfer token", async () => clubCall(await ssoClient(), "GET", "/api/loyalty/club/me")),
      c(429, "a club client over its rate limit", () => clubCall(sso.limitedClub, "GET", "/api/loyalty/club/me"))
    ],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "GET /api/oidc/.well-known/openid-configuration": { cases: [c(200, "discovery", () => oidcGet("/api/oidc/.well-known/openid-configuration"))], notCaused: DATABASE_AWAY },
  "GET /api/oidc/jwks": { cases: [c(200, "the public keys", () => oidcGet("/api/oidc/jwks"))], notCaused: DATABASE_AWAY },
  "GET /api/oidc/auth": {
    cases: [
      c(303, "to the sign-in page", async () => {
        const { challenge } = await pkce()
        return oidcGet(`/api/oidc/auth?${new URLSearchParams({ client_id: (await ssoClient()).client_id, response_type: "code", redirect_uri: SSO_REDIRECT, scope: "openid", code_challenge: challenge, code_challenge_method: "S256" })}`)
      }),
      c(400, "an unknown client", () => oidcGet(`/api/oidc/auth?client_id=nobody&response_type=code&redirect_uri=${encodeURIComponent(SSO_REDIRECT)}`))
    ],
    notCaused: DATABASE_AWAY
  },
  "POST /api/oidc/token": {
    cases: [
      c(200, "a code exchanged", async () => {
        const a = await authorizationCode(platform.baseUrl, tenant.live_key, sql)
        return oidcForm("/api/oidc/token", { grant_type: "authorization_code", code: a.code, redirect_uri: SSO_REDIRECT, code_verifier: a.verifier }, { authorization: basic(a.rp) })
      }),
      c(400, "an unknown code", async () => oidcForm("/api/oidc/token", { grant_type: "authorization_code", code: "nope", redirect_uri: SSO_REDIRECT, code_verifier: "v".repeat(43) }, { authorization: basic(await ssoClient()) })),
      c(401, "a wrong client secret", async () => oidcForm("/api/oidc/token", { grant_type: "authorization_code", code: "nope" }, { authorization: basic({ ...(await ssoClient()), client_secret: "wrong" }) }))
    ],
    notCaused: DATABASE_AWAY
  },
  "GET /api/oidc/me": {
    cases: [
      c(200, "the member's claims", async () => call("GET", "/api/oidc/me", { key: await memberToken() })),
      c(401, "no access token", () => call("GET", "/api/oidc/me"))
    ],
    notCaused: DATABASE_AWAY
  },
  "POST /api/oidc/token/revocation": {
    cases: [
      c(200, "an unknown token (revocation answers 200 whatever the token)", async () => oidcForm("/api/oidc/token/revocation", { token: "unknown" }, { authorization: basic(await ssoClient()) })),
      c(400, "no token", async () => oidcForm("/api/oidc/token/revocation", {}, { authorization: basic(await ssoClient()) })),
      c(401, "a wrong client secret", async () => oidcForm("/api/oidc/token/revocation", { token: "x" }, { authorization: basic({ ...(await ssoClient()), client_secret: "wrong" }) }))
    ],
    notCaused: DATABASE_AWAY
  },
  "GET /api/oidc/session/end": {
    cases: [
      c(200, "the sign-out page", () => oidcGet("/api/oidc/session/end")),
      c(400, "an id_token_hint that is no token", () => oidcGet("/api/oidc/session/end?id_token_hint=garbage"))
    ],
    notCaused: DATABASE_AWAY
  },
  "POST /api/oidc/session/end/confirm": {
    cases: [
      c(303, "a member signs out", async () => {
        const m = await memberAccessToken(platform.baseUrl, tenant.live_key, sql)
        const page = await m.browser.get(`${platform.baseUrl}/api/oidc/session/end?${new URLSearchParams({ id_token_hint: m.id_token, post_logout_redirect_uri: "http://127.0.0.1/bye" })}`)
        const form = formOf(await page.text())
        return asResult(await m.browser.post(absolute(platform.baseUrl, form.action!), { xsrf: form.xsrf!, logout: "yes" }))
      }),
      c(400, "no sign-out in progress", () => oidcForm("/api/oidc/session/end/confirm", { xsrf: "x", logout: "yes" }))
    ],
    notCaused: DATABASE_AWAY
  },
  "GET /api/oidc/interaction/{uid}": {
    cases: [
      c(200, "the email form", async () => {
        const p = await ssoPage()
        return asResult(await p.b.get(p.page))
      }),
      c(400, "an interaction that is not this browser's", () => oidcGet(`/api/oidc/interaction/${NO_SUCH_ID}`))
    ],
    notCaused: DATABASE_AWAY
  },
  "POST /api/oidc/interaction/{uid}/login": {
    cases: [
      c(200, "an email that is no member's: the same answer", async () => {
        await emailChannel()
        const p = await ssoPage()
        return asResult(await p.b.post(`${p.page}/login`, { email: `nobody${Date.now()}@gmail.com` }))
      }),
      c(400, "not an email", async () => {
        const p = await ssoPage()
        return asResult(await p.b.post(`${p.page}/login`, { email: "not-an-email" }))
      }),
      c(429, "an email over its limit", async () => {
        const p = await ssoPage()
        const address = `limited${Date.now()}@gmail.com`
        await exhaust(signInEmailBucket(tenant.tenant_id, address))
        return asResult(await p.b.post(`${p.page}/login`, { email: address }))
      }),
      c(503, "a member's code that cannot be sent (no SMTP server here)", async () => {
        await emailChannel()
        const p = await ssoPage()
        const member = await loyaltyMember()
        return asResult(await p.b.post(`${p.page}/login`, { email: member.email }))
      })
    ]
  },
  "POST /api/oidc/interaction/{uid}/abort": {
    cases: [
      c(303, "the member cancels", async () => {
        const p = await ssoPage()
        return asResult(await p.b.post(`${p.page}/abort`, {}))
      }),
      c(400, "an interaction that is not this browser's", () => oidcForm(`/api/oidc/interaction/${NO_SUCH_ID}/abort`, {}))
    ],
    notCaused: DATABASE_AWAY
  },
  "POST /api/oidc/interaction/{uid}/otp": {
    cases: [
      c(303, "the right code", async () => {
        await emailChannel()
        const p = await ssoPage()
        const member = await loyaltyMember()
        await p.b.post(`${p.page}/login`, { email: member.email })
        await sql`UPDATE oidc_sign_in_codes SET code_hash = ${digest("424242", p.uid)} WHERE interaction_id = ${p.uid}`
        return asResult(await p.b.post(`${p.page}/otp`, { code: "424242" }))
      }),
      c(400, "a wrong code", async () => {
        const p = await ssoPage()
        return asResult(await p.b.post(`${p.page}/otp`, { code: "000000" }))
      })
    ],
    notCaused: DATABASE_AWAY
  }
}

const routes: Record<string, RouteCases> = {
  ...cdpRoutes,
  ...ssoRoutes,
  ...rawRouteCases({
    call, coreKey: () => tenant.live_key, baseUrl: () => platform.baseUrl,
    whatsAppNumber: async () => {
      const body = whatsApp()
      await data(onChannels("PUT", "/api/v1/channels/whatsapp", body))
      return body.phone_number_id
    },
    appSecret: whatsApp().app_secret as string, verifyToken: whatsApp().verify_token as string,
    unsubscribeToken: async () => {
      await emailChannel()
      const guest = await data(as("POST", "/api/v1/guests", { phone: guestPhone(), first_name: "Open", last_name: "Api", email: `unsub${Date.now()}@gmail.com` }))
      const sent = await data(as("POST", "/api/v1/messages", { contact_id: guest.contact_id, channel: "email", category: "utility", subject: "s", text: "x" }))
      return unsubscribeToken(encryptionKey, sent.message_id)
    }
  }),
  ...loyaltyRoutes,
  ...journeyRoutes,
  ...loyaltyCreditRoutes,
  ...websiteRoutes,
  ...contactRoutes({ c, as, keyCases, tenant: () => tenant }),
  ...segmentRoutes({ c, as, call, keyCases, tenant: () => tenant }),
  ...broadcastRoutes({ c, as, call, keyCases, tenant: () => tenant, emailChannel }),
  ...privacyRoutes({ c, call, keyCases, tenant: () => tenant, privacyKey: () => privacyWriteKey }),
  ...webhookRoutes({ c, as, keyCases, nulParam, sql, tenant: () => tenant, newSubscription, noSuchId: NO_SUCH_ID }),
  ...messageRoutes({ c, as, keyCases, contactWithMessage: async () => {
    const conversation = await newConversation()
    const [row] = await sql`SELECT contact_id FROM conversations WHERE id = ${conversation}`
    return row!.contact_id as string
  } }),
  ...overviewRoutes({ c, as, keyCases, hotelId: () => tenant.hotel_id }),
  ...newsletterRoutes({
    c, call, keyCases, sql, tenant: () => tenant, unconfigured: () => unconfigured, limitedKey: () => limitedKey, emailChannel,
    notCausedActorFailures: ACTOR_FAILURES
  }),
  ...readRoutes({ call, keyCases, tenant: () => tenant }),
  ...tenancyRoutes({ c, call, keyCases, tenant: () => tenant, other: () => unconfigured }),
  ...staffRoutes({ c, call, sql, tenant: () => tenant }),
  "POST /api/v1/reservations": {
    cases: [
      c(201, "a new reservation", () => as("POST", "/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }))),
      c(200, "the same reservation_id again", async () => {
        const body = reservation({ hotel_code: tenant.hotel_code })
        await data(as("POST", "/api/v1/reservations", body))
        return as("POST", "/api/v1/reservations", { ...body, status: "modified" })
      }),
      c(200, "no guests and no existing reservation: skipped", () => as("POST", "/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, { guests: [] }))),
      c(201, "its one guest suppressed: stored without them, warning subject_suppressed", async () =>
        as("POST", "/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, { guests: [{ first_name: "Gone", phone: await suppressedPhone() }] }))),
      c(400, "a body failing the schema (HttpApi's 400 through ValidationErrors)", () =>
        as("POST", "/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, { check_in: "tomorrow" }))),
      c(400, "a body that is not JSON (the router's 400)", () => call("POST", "/api/v1/reservations", { key: tenant.live_key, raw: "{" })),
      c(422, "an unknown hotel_code", () => as("POST", "/api/v1/reservations", reservation({ hotel_code: "NO-SUCH-HOTEL" }))),
      ...keyCases("POST", "/api/v1/reservations", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/reservations/batch": {
    cases: [
      c(200, "one good and one bad item", () =>
        as("POST", "/api/v1/reservations/batch", { reservations: [reservation({ hotel_code: tenant.hotel_code }), { reservation_id: "x" }] })),
      c(400, "an empty batch", () => as("POST", "/api/v1/reservations/batch", { reservations: [] })),
      c(400, "a body failing the schema", () => as("POST", "/api/v1/reservations/batch", { reservations: "all" })),
      ...keyCases("POST", "/api/v1/reservations/batch", { reservations: [] })
    ],
    notCaused: { 503: ACTOR_FAILURES[503] }
  },
  "POST /api/v1/guests": {
    cases: [
      c(201, "a new contact", () => as("POST", "/api/v1/guests", { phone: guestPhone(), first_name: "New", last_name: "Guest", hotel_code: tenant.hotel_code })),
      c(200, "an existing contact", async () => {
        const body = { phone: guestPhone(), first_name: "Known", last_name: "Guest" }
        await data(as("POST", "/api/v1/guests", body))
        return as("POST", "/api/v1/guests", body)
      }),
      c(400, "a body failing the schema", () => as("POST", "/api/v1/guests", { phone: guestPhone() })),
      c(400, "a phone that is no number", () => as("POST", "/api/v1/guests", { phone: "12", first_name: "A", last_name: "B" })),
      c(200, "a suppressed guest: no contact (contact_id null), warning subject_suppressed", async () =>
        as("POST", "/api/v1/guests", { phone: await suppressedPhone(), first_name: "Gone", last_name: "Guest" })),
      c(422, "an unknown hotel_code", () => as("POST", "/api/v1/guests", { phone: guestPhone(), first_name: "A", last_name: "B", hotel_code: "NO-SUCH-HOTEL" })),
      ...keyCases("POST", "/api/v1/guests", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/v1/guests": {
    cases: [
      c(200, "a known phone", async () => {
        const p = guestPhone()
        await data(as("POST", "/api/v1/guests", { phone: p, first_name: "Look", last_name: "Up", tags: ["vip"] }))
        return as("GET", `/api/v1/guests?phone=${encodeURIComponent(p)}`)
      }),
      c(400, "no phone in the query", () => as("GET", "/api/v1/guests")),
      c(400, "a phone that is no number", () => as("GET", "/api/v1/guests?phone=12")),
      c(404, "an unknown phone", () => as("GET", `/api/v1/guests?phone=${encodeURIComponent(guestPhone())}`)),
      ...keyCases("GET", "/api/v1/guests?phone=%2B34600000000")
    ]
  },
  "POST /api/v1/guests/batch": {
    cases: [
      c(200, "one good and one bad item", () => as("POST", "/api/v1/guests/batch", { guests: [{ phone: guestPhone(), first_name: "A", last_name: "B" }, { phone: "12" }] })),
      c(400, "an empty batch", () => as("POST", "/api/v1/guests/batch", { guests: [] })),
      c(400, "a body failing the schema", () => as("POST", "/api/v1/guests/batch", {})),
      ...keyCases("POST", "/api/v1/guests/batch", { guests: [] })
    ],
    notCaused: { 503: ACTOR_FAILURES[503] }
  },
  "POST /api/v1/fields": {
    cases: [
      c(200, "definitions upserted", () => as("POST", "/api/v1/fields", { fields: [
        { field_key: "room_pref", field_label: "Room", field_type: "select", options: ["high", "low"], display_order: 1 },
        { field_key: "notes", field_label: "Notes", field_type: "text", description: "free text" }
      ] })),
      c(400, "a body failing the schema", () => as("POST", "/api/v1/fields", { fields: [] })),
      ...keyCases("POST", "/api/v1/fields", { fields: [] })
    ]
  },
  "GET /api/v1/fields": {
    cases: [c(200, "the definitions", () => as("GET", "/api/v1/fields")), ...keyCases("GET", "/api/v1/fields")],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "POST /api/v1/events": {
    cases: [
      c(201, "a new event", () => as("POST", "/api/v1/events", { event_type: "guest.message", payload: { text: "hi" }, idempotency_key: uniqueId("ev") })),
      c(200, "a repeated idempotency_key", async () => {
        const body = { event_type: "review.requested", payload: {}, idempotency_key: uniqueId("ev"), hotel_code: tenant.hotel_code }
        await data(as("POST", "/api/v1/events", body))
        return as("POST", "/api/v1/events", body)
      }),
      c(400, "a body failing the schema", () => as("POST", "/api/v1/events", { event_type: "Not A Type", payload: {} })),
      c(400, "a guest_phone that is no number", () => as("POST", "/api/v1/events", { event_type: "guest.message", payload: {}, guest_phone: "12" })),
      c(200, "a suppressed guest_phone: not recorded, warning subject_suppressed", async () =>
        as("POST", "/api/v1/events", { event_type: "guest.message", payload: {}, guest_phone: await suppressedPhone() })),
      c(422, "an unknown contact_id", () => as("POST", "/api/v1/events", { event_type: "guest.message", payload: {}, contact_id: NO_SUCH_ID })),
      c(422, "an unknown hotel_code", () => as("POST", "/api/v1/events", { event_type: "guest.message", payload: {}, hotel_code: "NO-SUCH-HOTEL" })),
      ...keyCases("POST", "/api/v1/events", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/webhooks": {
    cases: [
      c(201, "a new subscription", () => as("POST", "/api/v1/webhooks", subscription({ headers: { "X-Partner": "p" }, description: "openapi" }))),
      c(400, "a body failing the schema", () => as("POST", "/api/v1/webhooks", subscription({ event_types: ["booking.exploded"] }))),
      c(400, "a plain http url", () => as("POST", "/api/v1/webhooks", subscription({ url: "http://93.184.215.14/hook" }))),
      c(400, "a backoff cap below the first wait", () =>
        as("POST", "/api/v1/webhooks", subscription({ retry_policy: { initial_backoff_seconds: 600, max_backoff_seconds: 60 } }))),
      c(422, "a private address", () => as("POST", "/api/v1/webhooks", subscription({ url: "https://10.0.0.1/hook" }))),
      ...keyCases("POST", "/api/v1/webhooks", subscription())
    ]
  },
  "GET /api/v1/webhooks": {
    cases: [
      c(200, "the subscriptions", async () => {
        await newSubscription()
        return as("GET", "/api/v1/webhooks")
      }),
      ...keyCases("GET", "/api/v1/webhooks")
    ],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "GET /api/v1/webhooks/{id}": {
    cases: [
      c(200, "a subscription", async () => as("GET", `/api/v1/webhooks/${(await newSubscription()).id}`)),
      c(404, "an unknown id", () => as("GET", `/api/v1/webhooks/${NO_SUCH_ID}`)),
      c(404, "an id that is no uuid", () => as("GET", "/api/v1/webhooks/not-a-uuid")),
      nulParam("GET", "/api/v1/webhooks/%00"),
      ...keyCases("GET", `/api/v1/webhooks/${NO_SUCH_ID}`)
    ]
  },
  "PATCH /api/v1/webhooks/{id}": {
    cases: [
      c(200, "fields changed", async () =>
        as("PATCH", `/api/v1/webhooks/${(await newSubscription()).id}`, { description: null, retry_policy: { max_attempts: 3 } })),
      c(400, "a body failing the schema", async () => as("PATCH", `/api/v1/webhooks/${(await newSubscription()).id}`, { enabled: "yes" })),
      c(400, "a backoff cap below the stored first wait", async () =>
        as("PATCH", `/api/v1/webhooks/${(await newSubscription()).id}`, { retry_policy: { max_backoff_seconds: 1 } })),
      c(404, "an unknown id", () => as("PATCH", `/api/v1/webhooks/${NO_SUCH_ID}`, { enabled: false })),
      c(422, "a private address", async () => as("PATCH", `/api/v1/webhooks/${(await newSubscription()).id}`, { url: "https://169.254.169.254/" })),
      ...keyCases("PATCH", `/api/v1/webhooks/${NO_SUCH_ID}`, { enabled: false })
    ]
  },
  "DELETE /api/v1/webhooks/{id}": {
    cases: [
      c(200, "deleted", async () => as("DELETE", `/api/v1/webhooks/${(await newSubscription()).id}`)),
      c(404, "an unknown id", () => as("DELETE", `/api/v1/webhooks/${NO_SUCH_ID}`)),
      nulParam("DELETE", "/api/v1/webhooks/%00"),
      ...keyCases("DELETE", `/api/v1/webhooks/${NO_SUCH_ID}`)
    ]
  },
  "POST /api/v1/webhooks/{id}/rotate-secret": {
    cases: [
      c(200, "a new secret", async () => as("POST", `/api/v1/webhooks/${(await newSubscription()).id}/rotate-secret`)),
      c(404, "an unknown id", () => as("POST", `/api/v1/webhooks/${NO_SUCH_ID}/rotate-secret`)),
      nulParam("POST", "/api/v1/webhooks/%00/rotate-secret"),
      ...keyCases("POST", `/api/v1/webhooks/${NO_SUCH_ID}/rotate-secret`)
    ]
  },
  "GET /api/v1/webhooks/{id}/deliveries": {
    cases: [
      c(200, "a page of attempts", async () => {
        const sub = await newSubscription()
        await sql`INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome, response_status, error, duration_ms, next_attempt_at)
          VALUES (gen_random_uuid(), ${sub.id}, ${tenant.tenant_id}, false, 'e1', 'broadcast.completed', 1, 'failed', 500, 'HTTP 500', 12, now() + interval '1 minute'),
                 (gen_random_uuid(), ${sub.id}, ${tenant.tenant_id}, false, 'e1', 'broadcast.completed', 2, 'succeeded', 200, NULL, 8, NULL)`
        return as("GET", `/api/v1/webhooks/${sub.id}/deliveries?limit=1`)
      }),
      c(400, "a limit out of range", async () => as("GET", `/api/v1/webhooks/${(await newSubscription()).id}/deliveries?limit=0`)),
      c(400, "a cursor this API never returned", async () => as("GET", `/api/v1/webhooks/${(await newSubscription()).id}/deliveries?cursor=bogus`)),
      c(404, "an unknown id", () => as("GET", `/api/v1/webhooks/${NO_SUCH_ID}/deliveries`)),
      ...keyCases("GET", `/api/v1/webhooks/${NO_SUCH_ID}/deliveries`)
    ]
  },
  "GET /api/v1/webhook-settings": {
    cases: [c(200, "the settings", () => as("GET", "/api/v1/webhook-settings")), ...keyCases("GET", "/api/v1/webhook-settings")],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "PATCH /api/v1/webhook-settings": {
    cases: [
      c(200, "times changed", () => as("PATCH", "/api/v1/webhook-settings", { check_in_time: "14:30" })),
      c(400, "a body failing the schema", () => as("PATCH", "/api/v1/webhook-settings", { check_out_time: "25:00" })),
      ...keyCases("PATCH", "/api/v1/webhook-settings", {})
    ]
  },
  "POST /api/webhooks/cti": {
    cases: [
      c(201, "the first message of a call, ringing: with the screen pop", () =>
        cti(ctiEvent({ event_type: "call_ringing", from_number: guestPhone(), to_number: "+34910000000", direction: "inbound" }))),
      c(201, "a completed-call record", () => cti(completedCall())),
      c(200, "a later message of the call", async () => {
        const first = ctiEvent()
        await data(cti(first))
        return cti({ event_type: "call_hangup", call_id: first.call_id, duration: 3 })
      }),
      c(400, "an unknown event type", () => cti(ctiEvent({ event_type: "call_exploded" }))),
      c(400, "a body that is no object (HttpApi's 400 through ValidationErrors)", () => cti([1, 2])),
      c(401, "an unknown token", () => cti(ctiEvent(), "/api/webhooks/cti", "svccti_" + "A".repeat(32))),
      c(401, "no token", () => call("POST", "/api/webhooks/cti", { body: ctiEvent() })),
      c(422, "a full record without ended_at", () => cti(completedCall({ ended_at: undefined, answered_at: undefined }))),
      c(429, "a tenant over its telephony limit", () => cti(ctiEvent(), "/api/webhooks/cti", limitedCtiToken))
    ],
    notCaused: {
      403: "documented by CtiAuthentication for the group; without a provider in the path nothing can mismatch",
      ...ACTOR_FAILURES
    }
  },
  "POST /api/webhooks/cti/{provider}": {
    cases: [
      c(201, "the first message of a call", () => cti(ctiEvent(), "/api/webhooks/cti/aircall")),
      c(200, "a later message of the call", async () => {
        const first = completedCall()
        await data(cti(first, "/api/webhooks/cti/aircall"))
        return cti({ event: "call_completed", call_id: first.call_id, summary: "patched" }, "/api/webhooks/cti/aircall")
      }),
      c(400, "a missing call_id", () => cti({ event_type: "call_missed" }, "/api/webhooks/cti/aircall")),
      c(401, "an unknown token", () => cti(ctiEvent(), "/api/webhooks/cti/aircall", "svccti_" + "A".repeat(32))),
      c(403, "another provider than the token's", () => cti(ctiEvent(), "/api/webhooks/cti/twilio")),
      c(422, "a full record without started_at", () => cti(completedCall({ started_at: undefined }), "/api/webhooks/cti/aircall")),
      c(429, "a tenant over its telephony limit", () => cti(ctiEvent(), "/api/webhooks/cti/aircall", limitedCtiToken))
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/contacts/{id}/calls": {
    cases: [
      c(200, "a contact's calls", async () => {
        const recorded = await data(cti(completedCall()))
        return as("GET", `/api/contacts/${recorded.contact_id}/calls?limit=5`)
      }),
      c(400, "a limit out of range", async () => as("GET", `/api/contacts/${(await newGuest()).contact_id}/calls?limit=0`)),
      c(400, "a cursor this API never returned", async () => as("GET", `/api/contacts/${(await newGuest()).contact_id}/calls?cursor=garbage`)),
      c(404, "an unknown contact", () => as("GET", `/api/contacts/${NO_SUCH_ID}/calls`)),
      ...keyCases("GET", `/api/contacts/${NO_SUCH_ID}/calls`)
    ]
  },
  "POST /api/contacts/{id}/call": {
    cases: [
      c(202, "a dial request", async () => as("POST", `/api/contacts/${(await newGuest()).contact_id}/call`, { agent: { id: "a1", extension: "201" } })),
      c(400, "a body failing the schema", async () => as("POST", `/api/contacts/${(await newGuest()).contact_id}/call`, { to: 5 })),
      c(400, "a to that is no number", async () => as("POST", `/api/contacts/${(await newGuest()).contact_id}/call`, { to: "12" })),
      c(404, "an unknown contact", () => as("POST", `/api/contacts/${NO_SUCH_ID}/call`, {})),
      c(422, "a provider the account has no integration for", async () =>
        as("POST", `/api/contacts/${(await newGuest()).contact_id}/call`, { provider: "twilio" })),
      ...keyCases("POST", `/api/contacts/${NO_SUCH_ID}/call`, {})
    ]
  },
  "GET /api/v1/channels/email": {
    cases: [
      c(200, "the email sender", async () => {
        await data(onChannels("PUT", "/api/v1/channels/email", { from_address: "openapi@grupo.example", hotel_overrides: { [channelsTenant.hotel_id]: { from_name: "Hotel" } } }))
        return onChannels("GET", "/api/v1/channels/email")
      }),
      c(404, "not configured", () => call("GET", "/api/v1/channels/email", { key: unconfigured.live_key })),
      ...keyCases("GET", "/api/v1/channels/email")
    ],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "PUT /api/v1/channels/email": {
    cases: [
      c(200, "the stored configuration", () => onChannels("PUT", "/api/v1/channels/email", {
        from_address: "openapi@grupo.example", from_name: "Grupo", reply_to: "reply@grupo.example",
        hotel_overrides: { [channelsTenant.hotel_id]: { from_address: "bcn@grupo.example", from_name: "Hotel", reply_to: "bcn@grupo.example" } },
        send_rate_per_minute: 100
      })),
      c(400, "a from_address that is no address", () => onChannels("PUT", "/api/v1/channels/email", { from_address: "nope" })),
      c(400, "a misspelt field", () => onChannels("PUT", "/api/v1/channels/email", { from_address: "openapi@grupo.example", fromName: "x" })),
      c(422, "an override for a hotel of another account", () =>
        onChannels("PUT", "/api/v1/channels/email", { from_address: "openapi@grupo.example", hotel_overrides: { [unconfigured.hotel_id]: { from_name: "X" } } })),
      ...keyCases("PUT", "/api/v1/channels/email", { from_address: "openapi@grupo.example" })
    ]
  },
  "GET /api/v1/channels/whatsapp": {
    cases: [
      c(200, "the number and templates, never a secret", async () => {
        await configureWhatsApp()
        return onChannels("GET", "/api/v1/channels/whatsapp")
      }),
      c(404, "not configured", () => call("GET", "/api/v1/channels/whatsapp", { key: unconfigured.live_key })),
      ...keyCases("GET", "/api/v1/channels/whatsapp")
    ],
    notCaused: { 400: NOTHING_TO_VALIDATE }
  },
  "PUT /api/v1/channels/whatsapp": {
    cases: [
      c(200, "the stored configuration", () => onChannels("PUT", "/api/v1/channels/whatsapp", whatsApp({ send_rate_per_minute: 80 }))),
      c(400, "a duplicate template", () => onChannels("PUT", "/api/v1/channels/whatsapp", whatsApp({
        templates: [{ name: "a", language: "es", category: "utility", body_parameters: 0 }, { name: "a", language: "es", category: "utility", body_parameters: 1 }]
      }))),
      c(400, "the first PUT without secrets", () => call("PUT", "/api/v1/channels/whatsapp", { key: unconfigured.live_key, body: { phone_number_id: phoneNumberId() } })),
      c(409, "a phone_number_id the live mode holds, claimed by the sandbox", async () => {
        const live = await configureWhatsApp()
        return call("PUT", "/api/v1/channels/whatsapp", { key: channelsTenant.test_key, body: whatsApp({ phone_number_id: live.phone_number_id }) })
      }),
      ...keyCases("PUT", "/api/v1/channels/whatsapp", whatsApp())
    ]
  },
  "PUT /api/v1/channels/whatsapp/templates/{name}/{language}": {
    cases: [
      c(200, "a template registered", async () => {
        await configureWhatsApp()
        return onChannels("PUT", TEMPLATE, { category: "utility", body_parameters: 1 })
      }),
      c(400, "a category that does not exist", () => onChannels("PUT", TEMPLATE, { category: "promo", body_parameters: 1 })),
      c(400, "a name WhatsApp would refuse", () => onChannels("PUT", "/api/v1/channels/whatsapp/templates/Late%20Checkout/es", { category: "utility", body_parameters: 1 })),
      c(404, "no WhatsApp channel", () => call("PUT", TEMPLATE, { key: unconfigured.live_key, body: { category: "utility", body_parameters: 1 } })),
      ...keyCases("PUT", TEMPLATE, { category: "utility", body_parameters: 1 })
    ]
  },
  "DELETE /api/v1/channels/whatsapp/templates/{name}/{language}": {
    cases: [
      c(200, "a template unregistered", async () => {
        await configureWhatsApp()
        await data(onChannels("PUT", TEMPLATE, { category: "utility", body_parameters: 1 }))
        return onChannels("DELETE", TEMPLATE)
      }),
      c(400, "a language WhatsApp does not know", () => onChannels("DELETE", "/api/v1/channels/whatsapp/templates/late_checkout/spanish")),
      c(404, "a template not registered", async () => {
        await configureWhatsApp()
        return onChannels("DELETE", "/api/v1/channels/whatsapp/templates/never_registered/es")
      }),
      ...keyCases("DELETE", TEMPLATE)
    ]
  },
  "POST /api/v1/messages": {
    cases: [
      c(202, "a marketing email without consent: recorded as skipped", async () => {
        await emailChannel()
        return as("POST", "/api/v1/messages", { contact_id: (await newGuest()).contact_id, channel: "email", subject: "Offer", text: "x" })
      }),
      c(400, "a body failing the schema", () => as("POST", "/api/v1/messages", { contact_id: NO_SUCH_ID, channel: "fax" })),
      c(400, "an email without a subject", () => as("POST", "/api/v1/messages", { contact_id: NO_SUCH_ID, channel: "email", text: "x" })),
      c(404, "an unknown contact", () => as("POST", "/api/v1/messages", { contact_id: NO_SUCH_ID, channel: "email", category: "utility", subject: "s", text: "x" })),
      c(422, "a channel the account has not configured", async () =>
        as("POST", "/api/v1/messages", { contact_id: (await newGuest()).contact_id, channel: "whatsapp", template: { name: "t", language: "es", parameters: [] } })),
      ...keyCases("POST", "/api/v1/messages", { contact_id: NO_SUCH_ID, channel: "email", subject: "s", text: "x" })
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/v1/contacts/{id}/messages": {
    cases: [
      c(200, "a contact's messages with their history", async () => {
        await emailChannel()
        const guest = await newGuest()
        await data(as("POST", "/api/v1/messages", { contact_id: guest.contact_id, channel: "email", category: "utility", subject: "s", text: "x" }))
        return as("GET", `/api/v1/contacts/${guest.contact_id}/messages?limit=5`)
      }),
      c(400, "a limit out of range", async () => as("GET", `/api/v1/contacts/${(await newGuest()).contact_id}/messages?limit=0`)),
      c(400, "a cursor this API never returned", async () => as("GET", `/api/v1/contacts/${(await newGuest()).contact_id}/messages?cursor=garbage`)),
      c(404, "an unknown contact", () => as("GET", `/api/v1/contacts/${NO_SUCH_ID}/messages`)),
      ...keyCases("GET", `/api/v1/contacts/${NO_SUCH_ID}/messages`)
    ]
  },
  "GET /api/v1/conversations/{id}": {
    cases: [
      c(200, "a conversation with its messages", async () => as("GET", `/api/v1/conversations/${await newConversation()}`)),
      c(404, "an unknown conversation", () => as("GET", `/api/v1/conversations/${NO_SUCH_ID}`)),
      nulParam("GET", "/api/v1/conversations/%00"),
      ...keyCases("GET", `/api/v1/conversations/${NO_SUCH_ID}`)
    ]
  },
  "POST /api/v1/conversations/{id}/close": {
    cases: [
      c(200, "closed", async () => as("POST", `/api/v1/conversations/${await newConversation()}/close`)),
      c(404, "an unknown conversation", () => as("POST", `/api/v1/conversations/${NO_SUCH_ID}/close`)),
      nulParam("POST", "/api/v1/conversations/%00/close"),
      ...keyCases("POST", `/api/v1/conversations/${NO_SUCH_ID}/close`)
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /api/v1/contacts/{id}/opt-out": {
    cases: [
      c(200, "opted out", async () => as("POST", `/api/v1/contacts/${(await newGuest()).contact_id}/opt-out`, { channel: "whatsapp" })),
      c(400, "an unknown channel", async () => as("POST", `/api/v1/contacts/${(await newGuest()).contact_id}/opt-out`, { channel: "fax" })),
      c(404, "an unknown contact", () => as("POST", `/api/v1/contacts/${NO_SUCH_ID}/opt-out`, { channel: "email" })),
      ...keyCases("POST", `/api/v1/contacts/${NO_SUCH_ID}/opt-out`, { channel: "email" })
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /api/calls/{call_record_id}": {
    cases: [
      c(200, "a call record with its transcript", async () =>
        as("GET", `/api/calls/${(await data(cti(completedCall({ transcript: [{ speaker: "guest", text: "hi" }], summary: "s" })))).call_record_id}`)),
      c(404, "an unknown call record", () => as("GET", `/api/calls/${NO_SUCH_ID}`)),
      c(404, "an id that is no uuid", () => as("GET", "/api/calls/not-a-uuid")),
      nulParam("GET", "/api/calls/%00"),
      ...keyCases("GET", `/api/calls/${NO_SUCH_ID}`)
    ]
  },
  "POST /b2b/accounts": {
    cases: [
      c(201, "a new account with codes under a parent", async () =>
        as("POST", "/b2b/accounts", {
          type: "agency", name: "Viajes Sol", parent_id: (await newAccount({ type: "consortium" })).account_id, external_id: uniqueId("TA"),
          codes: { agency_codes: [uniqueId("AG")], promo_codes: [uniqueId("PR")], rate_codes: [{ code: uniqueId("RC"), hotel_id: tenant.hotel_id, valid_from: "2026-01-01", valid_to: "2026-12-31" }] },
          email_domains: ["viajessol.es"], desk_emails: ["reservas@viajessol.es"], phone: guestPhone(), country: "ES"
        })),
      c(400, "a body failing the schema", () => as("POST", "/b2b/accounts", { type: "airline", name: "X" })),
      c(400, "a free-mail domain", () => as("POST", "/b2b/accounts", { type: "corporate", name: "X", email_domains: ["gmail.com"] })),
      c(409, "an agency code another account holds", async () => {
        const code = uniqueId("AG")
        await newAccount({ codes: { agency_codes: [code] } })
        return as("POST", "/b2b/accounts", { type: "agency", name: "X", codes: { agency_codes: [code] } })
      }),
      c(422, "a parent at level three", async () => {
        const root = await newAccount()
        const mid = await newAccount({ parent_id: root.account_id })
        const leaf = await newAccount({ parent_id: mid.account_id })
        return as("POST", "/b2b/accounts", { type: "agency", name: "X", parent_id: leaf.account_id })
      }),
      ...keyCases("POST", "/b2b/accounts", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /b2b/accounts": {
    cases: [
      c(200, "accounts holding a code", async () => {
        const code = uniqueId("AG")
        await newAccount({ codes: { agency_codes: [code] } })
        return as("GET", `/b2b/accounts?code=${code}`)
      }),
      c(200, "a page of accounts", async () => {
        await newAccount()
        return as("GET", "/b2b/accounts?limit=1")
      }),
      c(400, "a limit out of range", () => as("GET", "/b2b/accounts?limit=101")),
      ...keyCases("GET", "/b2b/accounts")
    ]
  },
  "GET /b2b/accounts/{id}": {
    cases: [
      c(200, "an account with children, contacts and production", async () => {
        const code = uniqueId("AG")
        const root = await newAccount({ codes: { agency_codes: [code] } })
        await newAccount({ parent_id: root.account_id })
        await data(as("POST", `/b2b/accounts/${root.account_id}/contacts`, { first_name: "Ana", phone: guestPhone(), role: "booker" }))
        await data(as("POST", "/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, { agency_code: code, amount: 120, currency: "EUR" })))
        return as("GET", `/b2b/accounts/${root.account_id}`)
      }),
      c(404, "an unknown id", () => as("GET", `/b2b/accounts/${NO_SUCH_ID}`)),
      c(404, "an id that is no uuid", () => as("GET", "/b2b/accounts/not-a-uuid")),
      nulParam("GET", "/b2b/accounts/%00"),
      ...keyCases("GET", `/b2b/accounts/${NO_SUCH_ID}`)
    ]
  },
  "PATCH /b2b/accounts/{id}": {
    cases: [
      c(200, "fields and codes changed, detached", async () =>
        as("PATCH", `/b2b/accounts/${(await newAccount({ parent_id: (await newAccount()).account_id })).account_id}`, {
          name: "Renamed", parent_id: null, codes: { iata: "78212345" }, phone: null
        })),
      c(400, "a body failing the schema", async () => as("PATCH", `/b2b/accounts/${(await newAccount()).account_id}`, { name: null })),
      c(404, "an unknown id", () => as("PATCH", `/b2b/accounts/${NO_SUCH_ID}`, { name: "X" })),
      c(409, "a promo code another account holds", async () => {
        const code = uniqueId("PR")
        await newAccount({ codes: { promo_codes: [code] } })
        return as("PATCH", `/b2b/accounts/${(await newAccount()).account_id}`, { codes: { promo_codes: [code] } })
      }),
      c(422, "a parent that is its own descendant", async () => {
        const root = await newAccount()
        const child = await newAccount({ parent_id: root.account_id })
        return as("PATCH", `/b2b/accounts/${root.account_id}`, { parent_id: child.account_id })
      }),
      ...keyCases("PATCH", `/b2b/accounts/${NO_SUCH_ID}`, {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /b2b/accounts/{id}/contacts": {
    cases: [
      c(201, "a person linked", async () =>
        as("POST", `/b2b/accounts/${(await newAccount()).account_id}/contacts`, { first_name: "Ana", last_name: "Ruiz", phone: guestPhone(), role: "booker", is_primary: true })),
      c(200, "the same person again", async () => {
        const account = (await newAccount()).account_id
        const body = { first_name: "Ana", phone: guestPhone() }
        await data(as("POST", `/b2b/accounts/${account}/contacts`, body))
        return as("POST", `/b2b/accounts/${account}/contacts`, { ...body, title: "CFO" })
      }),
      c(400, "a body failing the schema", async () => as("POST", `/b2b/accounts/${(await newAccount()).account_id}/contacts`, { phone: guestPhone() })),
      c(404, "an unknown account", () => as("POST", `/b2b/accounts/${NO_SUCH_ID}/contacts`, { first_name: "Ana", phone: guestPhone() })),
      c(200, "a suppressed person: nothing linked (contact_id null)", async () =>
        as("POST", `/b2b/accounts/${(await newAccount()).account_id}/contacts`, { first_name: "Gone", phone: await suppressedPhone() })),
      c(422, "only a role mailbox", async () => as("POST", `/b2b/accounts/${(await newAccount()).account_id}/contacts`, { first_name: "Desk", email: "reservas@desk-example.es" })),
      ...keyCases("POST", `/b2b/accounts/${NO_SUCH_ID}/contacts`, {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "POST /b2b/deals": {
    cases: [
      c(201, "a new deal", async () =>
        as("POST", "/b2b/deals", {
          account_id: (await newAccount()).account_id, name: "Offsite", type: "group", stage: "qualified", hotel_ids: [tenant.hotel_id],
          arrival: "2027-05-10", departure: "2027-05-13", room_nights: 120, value: { amount: 48000, currency: "EUR" }, probability: 40
        })),
      c(400, "a body failing the schema", () => as("POST", "/b2b/deals", { account_id: NO_SUCH_ID, name: "X", type: "group", stage: "maybe" })),
      c(409, "won at once with a rate code another account holds", async () => {
        const code = uniqueId("RC")
        await newAccount({ codes: { rate_codes: [{ code }] } })
        return as("POST", "/b2b/deals", { account_id: (await newAccount()).account_id, name: "X", type: "corporate_rate", stage: "won", rate_codes: [code] })
      }),
      c(422, "an unknown account", () => as("POST", "/b2b/deals", { account_id: NO_SUCH_ID, name: "X", type: "group", stage: "lead" })),
      ...keyCases("POST", "/b2b/deals", {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "PATCH /b2b/deals/{id}": {
    cases: [
      c(200, "a stage move", async () => as("PATCH", `/b2b/deals/${(await newDeal()).deal_id}`, { stage: "proposal", probability: 50 })),
      c(400, "a body failing the schema", async () => as("PATCH", `/b2b/deals/${(await newDeal()).deal_id}`, { stage: "maybe" })),
      c(404, "an unknown deal", () => as("PATCH", `/b2b/deals/${NO_SUCH_ID}`, { stage: "won" })),
      c(409, "won with a rate code another account holds", async () => {
        const code = uniqueId("RC")
        await newAccount({ codes: { rate_codes: [{ code }] } })
        return as("PATCH", `/b2b/deals/${(await newDeal({ type: "corporate_rate", rate_codes: [code] })).deal_id}`, { stage: "won" })
      }),
      c(422, "a stage change of a lost deal", async () => as("PATCH", `/b2b/deals/${(await newDeal({ stage: "lost" })).deal_id}`, { stage: "lead" })),
      ...keyCases("PATCH", `/b2b/deals/${NO_SUCH_ID}`, {})
    ],
    notCaused: ACTOR_FAILURES
  },
  "GET /b2b/deals": {
    cases: [
      c(200, "an account's deals", async () => as("GET", `/b2b/deals?account_id=${(await newDeal()).account_id}`)),
      c(400, "an unknown stage", () => as("GET", "/b2b/deals?stage=maybe")),
      ...keyCases("GET", "/b2b/deals")
    ]
  },
  "PUT /b2b/reservations/{reservation_id}/attribution": {
    cases: [
      c(200, "a manual attribution", async () => as("PUT", await newReservation(), { account_id: (await newAccount()).account_id })),
      c(400, "a body failing the schema", async () => as("PUT", await newReservation(), { account_id: "x" })),
      c(404, "an unknown reservation", () => as("PUT", "/b2b/reservations/NO-SUCH/attribution", { account_id: null })),
      c(422, "an unknown account", async () => as("PUT", await newReservation(), { account_id: NO_SUCH_ID })),
      ...keyCases("PUT", "/b2b/reservations/x/attribution", { account_id: null })
    ],
    notCaused: ACTOR_FAILURES
  },
  "DELETE /b2b/reservations/{reservation_id}/attribution": {
    cases: [
      c(200, "back to the rules", async () => {
        const code = uniqueId("AG")
        await newAccount({ codes: { agency_codes: [code] } })
        const path = await newReservation({ agency_code: code })
        await data(as("PUT", path, { account_id: null }))
        return as("DELETE", path)
      }),
      c(404, "an unknown reservation", () => as("DELETE", "/b2b/reservations/NO-SUCH/attribution")),
      nulParam("DELETE", "/b2b/reservations/%00/attribution"),
      ...keyCases("DELETE", "/b2b/reservations/x/attribution")
    ],
    notCaused: ACTOR_FAILURES
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

const operation = (key: string) => operationsOf(doc).find((o) => o.key === key)?.op

/** Loyalty SSO's provider endpoints and sign-in pages (tag `oidc`): OAuth 2.0 errors and HTML, not the core shape. */
const foreignShape = (op: OpenApiOperation) => (op as { tags?: ReadonlyArray<string> }).tags?.includes("oidc") === true

const schemaFor = (op: OpenApiOperation, status: number) => op.responses[String(status)]?.content?.["application/json"]?.schema
/** The error shape of its own a route's family has (website events, Meta's webhook, readiness), if any. */
const ownShapeOf = (key: string) => OWN_ERROR_SHAPES.find((f) => key.split(" ")[1]!.startsWith(f.prefix))

describe("/openapi.json", () => {
  it("is an OpenAPI 3.1 document", () => {
    expect(doc.openapi).toMatch(/^3\.1\./)
    expect(operationsOf(doc).length).toBeGreaterThan(0)
  })

  it("is checked by a validator that rejects what the document does not allow", () => {
    const created = schemaFor(operation("POST /api/v1/webhooks")!, 201)!
    const sub = { id: "i", url: "u", event_types: ["*"], headers: {}, enabled: true, disabled_reason: null, description: null,
      retry_policy: { max_attempts: 1, initial_backoff_seconds: 1, max_backoff_seconds: 1 }, previous_secret_expires_at: null,
      created_at: "c", updated_at: "u", secret: "s", warnings: [] }
    expect(validate(created, { success: true, data: sub }, doc)).toEqual([])
    const { warnings: _warnings, ...withoutWarnings } = sub
    for (const wrong of [
      { success: false, data: sub }, { success: true, data: withoutWarnings }, { success: true, data: { ...sub, extra: 1 } },
      { success: true, data: { ...sub, retry_policy: { ...sub.retry_policy, max_attempts: 1.5 } } }, { success: true, data: { ...sub, description: 3 } }
    ]) expect(validate(created, wrong, doc), JSON.stringify(wrong)).not.toEqual([])
  })

  it("every documented route has cases, and every case table entry is a documented route", () => {
    const documented = operationsOf(doc).map((o) => o.key)
    expect(documented.filter((k) => routes[k] === undefined), "routes in /openapi.json without cases in this file").toEqual([])
    const stale = Object.entries(routes).filter(([k, r]) => !documented.includes(k) && r.pendingUntilDocumented === undefined).map(([k]) => k)
    expect(stale, "case table entries for routes the document does not list").toEqual([])
  })

  it("every status a route documents is produced by a case here, or explained in notCaused", () => {
    const gaps: Array<string> = []
    for (const { key, op } of operationsOf(doc)) {
      const route = routes[key]
      if (!route) continue
      const caused = new Set(route.cases.map((x) => x.status))
      // 413 comes from the body limits every endpoint has: caused below for each route reading a body.
      if (op.requestBody !== undefined) caused.add(413)
      // 409 IDEMPOTENCY_CONFLICT comes from Idempotency-Key on every route honouring it: caused below for each.
      if (honoursIdempotencyKey(op)) caused.add(409)
      for (const status of Object.keys(op.responses).map(Number)) {
        if (!caused.has(status) && route.notCaused?.[status] === undefined && !(status === 413 && op.requestBody === undefined)) gaps.push(`${key} ${status}`)
      }
      for (const status of caused) if (op.responses[String(status)] === undefined) gaps.push(`${key} ${status} (a case expects an undocumented status)`)
    }
    expect(gaps).toEqual([])
  })

  it("every documented error answer is the core error shape { success: false, error: { message, code, details } }, or the spec's own shape of its family", () => {
    const core = { success: false, error: { message: "m", code: "C", details: { field: ["issue"] } } }
    const coreWrong = [{ success: false, error: { message: "m", code: "C" } }, { success: true, error: core.error }, { error: "m" }]
    const problems: Array<string> = []
    const closed = (schema: JsonSchema): boolean => {
      const resolved = typeof schema === "object" && typeof schema.$ref === "string" ? resolveRef(doc, schema.$ref) : schema
      if (typeof resolved !== "object") return false
      return Array.isArray(resolved.anyOf) ? (resolved.anyOf as Array<JsonSchema>).every(closed) : resolved.additionalProperties === false
    }
    for (const { key, op } of operationsOf(doc)) {
      const own = ownShapeOf(key)
      const [valid, wrong] = own === undefined ? [core, coreWrong] : [own.valid, own.wrong]
      for (const status of Object.keys(op.responses).filter((s) => Number(s) >= 400)) {
        // A page for a person (an unsubscribe link opened in a browser) answers HTML, errors included.
        if (Object.keys(op.responses[status]!.content ?? {}).join() === "text/html") continue
        // oidc-provider answers OAuth 2.0 errors (RFC 6749 5.2) and the sign-in pages HTML: their cases check their own shapes.
        if (foreignShape(op) && Number(status) !== 413) continue
        const schema = schemaFor(op, Number(status))
        if (schema === undefined) problems.push(`${key} ${status}: no JSON schema`)
        else {
          const errors = validate(schema, valid, doc)
          if (errors.length > 0) problems.push(`${key} ${status}: ${errors.join("; ")}`)
          for (const w of wrong) if (validate(schema, w, doc).length === 0) problems.push(`${key} ${status}: accepts ${JSON.stringify(w)}`)
          if (!closed(schema)) problems.push(`${key} ${status}: allows extra properties`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  it("no operation's success schema is a free-form record", () => {
    const resolved = (schema: JsonSchema): JsonSchema => {
      let s = schema
      while (typeof s === "object" && typeof s.$ref === "string") s = resolveRef(doc, s.$ref)
      return s
    }
    const branches = (schema: JsonSchema): Array<JsonSchema> => {
      const s = resolved(schema)
      const union = typeof s === "object" ? (s.anyOf ?? s.oneOf) as Array<JsonSchema> | undefined : undefined
      return union === undefined ? [s] : union.flatMap(branches)
    }
    /** An object that names no property and lets any in (`Record<string, unknown>`), or a schema that allows anything. */
    const freeForm = (schema: JsonSchema): boolean => branches(schema).some((s) => {
      if (s === true) return true
      if (typeof s !== "object") return false
      const typed = ["type", "const", "enum", "items", "allOf"].some((k) => s[k] !== undefined)
      if (typed && s.type !== "object") return false
      const named = Object.keys((s.properties ?? {}) as object).length > 0
      const extra = s.additionalProperties
      return !named && (extra === undefined || extra === true || (typeof extra === "object" && Object.keys(extra as object).length === 0))
    })
    const dataOf = (schema: JsonSchema) =>
      branches(schema).flatMap((s) => (typeof s === "object" && typeof s.properties === "object" && s.properties !== null && "data" in s.properties
        ? [(s.properties as Record<string, JsonSchema>).data!] : []))
    const arrayItems = (s: JsonSchema) => (typeof s === "object" && s.type === "array" && s.items !== undefined ? [s.items as JsonSchema] : [])
    /** A list's items: `data` itself as an array, or the arrays directly under it. */
    const itemsOf = (data: JsonSchema) =>
      branches(data).flatMap((s) => typeof s === "object" && typeof s.properties === "object" && s.properties !== null
        ? Object.values(s.properties as Record<string, JsonSchema>).flatMap(branches).flatMap(arrayItems)
        : arrayItems(s))
    const untyped: Array<string> = []
    for (const { key, op } of operationsOf(doc)) {
      for (const status of Object.keys(op.responses).filter((s) => s.startsWith("2"))) {
        const schema = schemaFor(op, Number(status))
        if (schema === undefined) continue
        if (freeForm(schema)) untyped.push(`${key} ${status}: the body`)
        for (const data of dataOf(schema)) {
          if (freeForm(data)) untyped.push(`${key} ${status}: data`)
          else if (itemsOf(data).some(freeForm)) untyped.push(`${key} ${status}: the items of a list in data`)
        }
      }
    }
    expect(untyped).toEqual([])
  })
})

/** A concrete path for a documented route: every `{param}` filled in. */
const concrete = (key: string) => key.split(" ")[1]!.replace(/\{[^}]+\}/g, NO_SUCH_ID)

/**
 * 413 on every route that reads a body: one byte over the largest limit any route has (the batch routes' 5 MiB),
 * announced by Content-Length, so it is refused before it is read (before authentication, too).
 */
const tooLarge = (key: string): Case =>
  c(413, "a body over the route's limit (BodyLimits)", () => call(key.split(" ")[0]!, concrete(key), {
    // The CDP bulk route takes up to 16 MiB (5,000 reservations).
    raw: "{" + " ".repeat((key.endsWith("/cdp/reservations/bulk") ? 16 : 5) * 1024 * 1024) + "}"
  }))

/** Whether a documented operation takes Idempotency-Key (schemas/edgeDocument.ts adds it to each that honours it). */
const honoursIdempotencyKey = (op: OpenApiOperation) =>
  ((op as { parameters?: ReadonlyArray<{ name?: string; in?: string }> }).parameters ?? []).some((p) => p.in === "header" && p.name === "Idempotency-Key")

/**
 * 409 IDEMPOTENCY_CONFLICT on every route honouring Idempotency-Key: a key used for one request (whatever its answer,
 * but a 5xx or 429) and then for another body.
 */
const IDEMPOTENCY_CONFLICT = "an Idempotency-Key reused for another body (IDEMPOTENCY_CONFLICT)"
/** The first answer of each route's conflict case: one that is not stored (401, 403, 429, 5xx) leaves nothing to conflict with. */
const idempotencyFirst = new Map<string, number>()
const NOT_STORED = (status: number) => status >= 500 || [401, 403, 408, 425, 429].includes(status)
const idempotencyConflict = (key: string): Case =>
  c(409, IDEMPOTENCY_CONFLICT, async () => {
    const [method, path] = [key.split(" ")[0]!, concrete(key)]
    const headers = { "idempotency-key": uniqueId("oa-idem") }
    idempotencyFirst.set(key, (await call(method, path, { key: tenant.live_key, body: {}, headers })).status)
    return call(method, path, { key: tenant.live_key, body: { another: "request" }, headers })
  })

for (const [key, route] of Object.entries(routes)) {
  describe(key, () => {
    for (const x of [...route.cases, route.tooLarge ?? tooLarge(key), ...(key.startsWith("POST ") ? [idempotencyConflict(key)] : [])]) {
      it(`${x.status}: ${x.name}`, async (ctx) => {
        const op = operation(key)
        if (op === undefined && route.pendingUntilDocumented !== undefined) return ctx.skip(route.pendingUntilDocumented)
        expect(op, `${key} is not in /openapi.json`).toBeDefined()
        if (x.status === 413 && op!.requestBody === undefined) return ctx.skip("the route reads no body")
        if (x.name === IDEMPOTENCY_CONFLICT && !honoursIdempotencyKey(op!)) return ctx.skip("the route does not take Idempotency-Key")
        const res = await x.send()
        if (x.name === IDEMPOTENCY_CONFLICT && NOT_STORED(idempotencyFirst.get(key)!)) {
          return ctx.skip(`the first answer (${idempotencyFirst.get(key)}) is not stored: this file's key cannot make the request`)
        }
        const shown = JSON.stringify(res.body)?.slice(0, 600)
        expect(Object.keys(op!.responses), `${key} answered an undocumented ${res.status}: ${shown}`).toContain(String(res.status))
        expect(res.status, shown).toBe(x.status)
        // What the document says the answer is: JSON (checked against its schema), another media type, or no body.
        const types = Object.keys(op!.responses[String(res.status)]?.content ?? {})
        if (types.length === 0) expect(res.body, `${key} ${res.status} documents no body`).toBe("")
        else if (!types.includes("application/json")) expect(types, `${key} ${res.status}`).toContain(res.headers.get("content-type")?.split(";")[0])
        else {
          expect(res.headers.get("content-type")).toMatch(/^application\/json/)
          const schema = schemaFor(op!, res.status)
          expect(validate(schema!, res.body, doc), `${key} ${res.status}: ${shown}`).toEqual([])
          if (res.status >= 400 && ownShapeOf(key) === undefined && (!foreignShape(op!) || res.status === 413)) expect(res.body.success).toBe(false)
        }
        if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      })
    }
  })
}
