import type { HttpResult } from "../support/platform.ts"
import { inboundValue, signWhatsAppBody, webhookEnvelope } from "../support/whatsappWire.ts"
import { createSource, ORIGIN, type Source } from "../website/support.ts"

// The contract cases of the routes served outside HttpApi (website-event ingestion, the browser SDK, the WhatsApp
// webhook, unsubscribe links, the operator's routes), for openapi.test.ts: same table, their own credentials and shapes.

export interface Case {
  readonly status: number
  readonly name: string
  readonly send: () => Promise<HttpResult>
}
export interface RouteCases {
  readonly cases: ReadonlyArray<Case>
  /** Documented statuses no request here produces, each with the reason. */
  readonly notCaused?: Readonly<Record<number, string>>
  /** Set while the route is being added elsewhere: its cases are skipped only as long as the document lacks it. */
  readonly pendingUntilDocumented?: string
  /** The route's own 413 case, when its limit is checked after its credential (the generic one sends none). */
  readonly tooLarge?: Case
}

export const c = (status: number, name: string, send: () => Promise<HttpResult>): Case => ({ status, name, send })

type Call = (method: string, path: string, options?: { key?: string; raw?: string; contentType?: string; headers?: Record<string, string> }) => Promise<HttpResult>

const EVENTS = "/api/v1/website-events"
const hook = (token: string) => `${EVENTS}/hooks/${token}`
const event = () => ({ event: "cart.viewed", properties: { step: 1 } })
const json = (v: unknown) => JSON.stringify(v)
const INTERNAL = "a fault of the platform's own past authentication (a defect): nothing a request can cause on purpose"
const WEBSITE_UNAVAILABLE = "shed or not confirmed in time: test/website/ingest.test.ts (an ingress with a 1 ms reply timeout) and test/http/sheddingServer.test.ts"

export interface RawRouteFixtures {
  readonly call: Call
  /** A core key of the tenant the website sources are made for. */
  readonly coreKey: () => string
  readonly baseUrl: () => string
  /** A WhatsApp number configured now (with this app secret and verify token), and its phone_number_id. */
  readonly whatsAppNumber: () => Promise<string>
  readonly appSecret: string
  readonly verifyToken: string
  /** The unsubscribe token of a queued marketing email. */
  readonly unsubscribeToken: () => Promise<string>
}

/** Cases for the raw routes. */
export const rawRouteCases = (f: RawRouteFixtures): Record<string, RouteCases> => {
  const { call, coreKey, baseUrl } = f
  const source = (body: Record<string, unknown> = {}): Promise<Source> => createSource(baseUrl(), coreKey(), body)
  const post = async (body: string, s?: Source) => call("POST", EVENTS, { key: (s ?? await source()).server_key, raw: body })
  const paused = async () => {
    const s = await source()
    await call("PATCH", `/api/v1/website-sources/${s.source_id}`, { key: coreKey(), raw: json({ enabled: false }) })
    return s
  }
  /** A source allowing one request a minute, its minute already used. */
  const exhausted = async (send: (s: Source) => Promise<HttpResult>) => {
    const s = await source({ rate_limit_per_minute: 1 })
    await send(s)
    return send(s)
  }
  const etag = async () => (await call("GET", "/sdk/svc-events.js")).headers.get("etag") ?? ""
  return {
    [`POST ${EVENTS}`]: {
      cases: [
        c(202, "an event with the server key", () => post(json(event()))),
        c(202, "a beacon: text/plain with the browser key in the query, from an allowed origin", async () => {
          const s = await source()
          return call("POST", `${EVENTS}?key=${s.browser_key}`, { raw: json(event()), contentType: "text/plain;charset=UTF-8", headers: { origin: ORIGIN } })
        }),
        c(400, "a body that is not JSON", () => post("{")),
        c(401, "no credential", () => call("POST", EVENTS, { raw: json(event()) })),
        c(403, "a browser key from an origin the source does not allow", async () =>
          call("POST", EVENTS, { raw: json(event()), headers: { origin: "https://evil.example", "x-svc-key": (await source()).browser_key } })),
        c(403, "a paused source", async () => post(json(event()), await paused())),
        c(422, "an event breaking the contract: the result names the field", () => post(json({ event: "Cart Viewed" }))),
        c(422, "an empty batch", () => post(json({ events: [] }))),
        c(429, "the source's minute used up", () => exhausted((s) => post(json(event()), s)))
      ],
      tooLarge: c(413, "a body over 64 KB", () => post(json({ event: "cart.viewed", properties: { a: "x".repeat(70_000) } }))),
      notCaused: { 500: INTERNAL, 503: WEBSITE_UNAVAILABLE }
    },
    [`OPTIONS ${EVENTS}`]: {
      cases: [c(204, "a preflight from an allowed origin", async () => {
        await source()
        return call("OPTIONS", EVENTS, { headers: { origin: ORIGIN, "access-control-request-method": "POST" } })
      })]
    },
    [`GET ${EVENTS}/hooks/{token}`]: {
      cases: [
        c(200, "ready", async () => call("GET", hook((await source()).webhook_token))),
        c(401, "an unknown token", () => call("GET", hook("svc_wh_000000000000000000000000"))),
        c(403, "a paused source", async () => call("GET", hook((await paused()).webhook_token)))
      ]
    },
    [`POST ${EVENTS}/hooks/{token}`]: {
      cases: [
        c(202, "a partner's event", async () => call("POST", hook((await source()).webhook_token), { raw: json(event()) })),
        c(400, "a body that is not JSON", async () => call("POST", hook((await source()).webhook_token), { raw: "[" })),
        c(401, "a signing source, no signature", async () => call("POST", hook((await source({ signing: true })).webhook_token), { raw: json(event()) })),
        c(403, "a paused source", async () => call("POST", hook((await paused()).webhook_token), { raw: json(event()) })),
        c(422, "an empty batch", async () => call("POST", hook((await source()).webhook_token), { raw: "[]" })),
        c(429, "the source's minute used up", () => exhausted((s) => call("POST", hook(s.webhook_token), { raw: json(event()) })))
      ],
      tooLarge: c(413, "a body over 256 KB", async () =>
        call("POST", hook((await source()).webhook_token), { raw: json({ event: "cart.viewed", note: "x".repeat(270_000) }) })),
      notCaused: { 500: INTERNAL, 503: WEBSITE_UNAVAILABLE }
    },
    "GET /sdk/svc-events.js": {
      cases: [
        c(200, "the script", () => call("GET", "/sdk/svc-events.js")),
        c(304, "If-None-Match with the current ETag", async () => call("GET", "/sdk/svc-events.js", { headers: { "if-none-match": await etag() } }))
      ],
      notCaused: { 500: "a script that does not compile: the SDK tests compile it and run it in Chromium" }
    },
    "GET /docs/website-events": { cases: [c(200, "the page every website-events error links to", () => call("GET", "/docs/website-events"))] },
    "GET /sdk/svc-events.js.sri": { cases: [c(200, "the integrity value", () => call("GET", "/sdk/svc-events.js.sri"))] },
    ...messagingCases(f),
    ...operationsCases(call),
    ...consoleCases(call),
    "GET /sdk/demo.html": {
      cases: [c(404, "outside development", () => call("GET", "/sdk/demo.html"))],
      notCaused: { 200: "development only: test/sdk/demo.test.ts starts `gep start` (which sets GEP_SDK_DEMO) and loads the page in Chromium" }
    }
  }
}

const WA = "/api/webhooks/whatsapp"
const handshake = (token: string) => `${WA}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`

const messagingCases = (f: RawRouteFixtures): Record<string, RouteCases> => {
  const { call } = f
  const inbound = async () => {
    const phoneNumberId = await f.whatsAppNumber()
    const raw = JSON.stringify(webhookEnvelope({ wabaId: "102290129340398", displayPhoneNumber: "34910000000", phoneNumberId },
      inboundValue({ from: "34600111222", text: "Hola", name: "Ana" }, `wamid.openapi${Date.now()}`)))
    return { raw, signature: signWhatsAppBody(f.appSecret, raw) }
  }
  const unsubscribe = async (method: string) => call(method, `/api/v1/unsubscribe/${await f.unsubscribeToken()}`)
  const NOT_SIGNED = "/api/v1/unsubscribe/00000000-0000-4000-8000-000000000000.AAAA"
  const UNAVAILABLE = "the actor or the database away: the messaging tests stop the worker and check the page"
  return {
    [`GET ${WA}`]: {
      cases: [
        c(200, "the handshake of a configured channel: the challenge", async () => {
          await f.whatsAppNumber()
          return call("GET", handshake(f.verifyToken))
        }),
        c(400, "no challenge", () => call("GET", `${WA}?hub.mode=subscribe`)),
        c(403, "a verify token no channel has", () => call("GET", handshake("never-configured")))
      ]
    },
    [`POST ${WA}`]: {
      cases: [
        c(200, "a guest's message, signed", async () => {
          const { raw, signature } = await inbound()
          return call("POST", WA, { raw, headers: { "x-hub-signature-256": signature } })
        }),
        c(400, "not an envelope", () => call("POST", WA, { raw: JSON.stringify({ object: "page" }) })),
        c(401, "a signature that does not verify", async () =>
          call("POST", WA, { raw: (await inbound()).raw, headers: { "x-hub-signature-256": `sha256=${"0".repeat(64)}` } }))
      ],
      notCaused: { 503: "an item not applied: needs the message actor away, which the messaging tests cover" }
    },
    "GET /api/v1/unsubscribe/{token}": {
      cases: [c(200, "the page with the button", () => unsubscribe("GET")), c(404, "a token that does not verify", () => call("GET", NOT_SIGNED))],
      notCaused: { 503: UNAVAILABLE }
    },
    "POST /api/v1/unsubscribe/{token}": {
      cases: [c(200, "unsubscribed", () => unsubscribe("POST")), c(404, "a token that does not verify", () => call("POST", NOT_SIGNED))],
      notCaused: { 503: UNAVAILABLE }
    }
  }
}

const operationsCases = (call: Call): Record<string, RouteCases> => ({
  "GET /healthz": { cases: [c(200, "alive", () => call("GET", "/healthz"))] },
  "GET /readyz": {
    cases: [c(200, "ready", () => call("GET", "/readyz"))],
    notCaused: { 503: "PostgreSQL or NATS away: the chaos tests stop them and read /readyz" }
  },
  "GET /metrics": { cases: [c(200, "the metrics", () => call("GET", "/metrics"))] }
})

/** Families whose errors have a shape of their own (the spec's, or a provider's), with answers each must refuse. */
export const OWN_ERROR_SHAPES: ReadonlyArray<{ readonly prefix: string; readonly valid: unknown; readonly wrong: ReadonlyArray<unknown> }> = [{
  prefix: EVENTS,
  valid: { error: { code: "unauthorized", message: "m", fix: "f", docs: "d" } },
  wrong: [{ error: { code: "unauthorized", message: "m" } }, { success: false, error: { message: "m", code: "C", details: {} } }, { error: "m" }]
}, {
  // What Meta gets back: it reads only the status.
  prefix: WA,
  valid: { error: { message: "m" } },
  wrong: [{ error: "m" }, { success: false, error: { message: "m", code: "C", details: {} } }]
}, {
  prefix: "/readyz",
  valid: { status: "not_ready", checks: { postgres: true, nats: false, streams: false } },
  wrong: [{ status: "not_ready" }, { success: false, error: { message: "m", code: "C", details: {} } }]
}]

/** The operator console: the page for any path under /console, its hashed assets (test/console/serving.test.ts checks the headers). */
const consoleCases = (call: Call): Record<string, RouteCases> => {
  const BUILD = "a console that does not compile: test/console/walk.browser.test.ts builds it and walks it in Chromium"
  const pageEtag = async () => (await call("GET", "/console")).headers.get("etag") ?? ""
  const script = async () => /src="(\/console\/assets\/[^"]+\.js)"/.exec(String((await call("GET", "/console")).body))?.[1] ?? ""
  return {
    "GET /console": {
      cases: [
        c(200, "the page", () => call("GET", "/console")),
        c(304, "If-None-Match with the page's ETag", async () => call("GET", "/console", { headers: { "if-none-match": await pageEtag() } }))
      ],
      notCaused: { 500: BUILD }
    },
    "GET /console/{path}": {
      cases: [
        c(200, "a screen's path", () => call("GET", "/console/contacts/00000000-0000-4000-8000-000000000000")),
        c(304, "If-None-Match with the page's ETag", async () => call("GET", "/console/deliveries", { headers: { "if-none-match": await pageEtag() } }))
      ],
      notCaused: { 500: BUILD }
    },
    "GET /console/assets/{file}": {
      cases: [
        c(200, "the script the page names", async () => call("GET", await script())),
        c(404, "a name no build made", () => call("GET", "/console/assets/main-NOTAHASH.js"))
      ],
      notCaused: { 500: BUILD }
    }
  }
}
