import type postgres from "postgres"
import type { Case } from "../http/rawRouteCases.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"
import { newAddress, ORIGIN } from "./support.ts"

// The newsletter routes' entries of test/http/openapi.test.ts's case table, kept here so that file only spreads them.

type Options = { key?: string; body?: unknown; raw?: string; contentType?: string; headers?: Record<string, string> }

export interface NewsletterCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  readonly call: (method: string, path: string, options?: Options) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly sql: postgres.Sql
  /** The tenant whose email channel the helper configures, and one that never has one. */
  readonly tenant: () => TestTenant
  readonly unconfigured: () => TestTenant
  readonly limitedKey: () => string
  readonly emailChannel: () => Promise<unknown>
  readonly notCausedActorFailures: Readonly<Record<number, string>>
}

const CONFIG = "/api/v1/newsletter/config"
const SUBSCRIBE = "/api/v1/newsletter/subscribe"
const CONFIRM = "/api/public/newsletter/confirm"
const FORM = "application/x-www-form-urlencoded"

export const newsletterRoutes = (x: NewsletterCaseContext) => {
  const { c, call } = x
  let publishable: string | undefined
  /** The tenant's widget, enabled on ORIGIN (its email channel configured first). */
  const widgetKey = async () => {
    if (publishable !== undefined) return publishable
    await x.emailChannel()
    const res = await call("PATCH", CONFIG, { key: x.tenant().live_key, body: { enabled: true, allowed_origins: [ORIGIN] } })
    publishable = res.body.data.publishable_key as string
    return publishable
  }
  const fromPage = async (body: unknown, origin = ORIGIN) => call("POST", SUBSCRIBE, { key: await widgetKey(), body, headers: { origin } })
  /** A real confirmation token: from the queued confirmation email's text (no SMTP server here, the message stays queued). */
  const token = async () => {
    const email = newAddress("oa")
    await fromPage({ email, consent: true })
    const row = await eventually(`the confirmation email to ${email}`, async () =>
      (await x.sql`SELECT body_text FROM messages WHERE tenant_id = ${x.tenant().tenant_id} AND to_address = ${email}`)[0])
    return /token=(\S+)/.exec(row.body_text as string)![1]!
  }
  const preflight = (path: string) => c(204, "a preflight from an allowed origin", async () => {
    await widgetKey()
    return call("OPTIONS", path, { headers: { origin: ORIGIN, "access-control-request-method": "POST" } })
  })
  const nothingToValidate = { 400: "documented by the ValidationErrors middleware of the group, but a preflight has no body or query to fail" }
  return {
    [`PATCH ${CONFIG}`]: {
      cases: [
        c(200, "origins and fields set", () => call("PATCH", CONFIG, { key: x.tenant().live_key, body: { allowed_origins: [ORIGIN], fields: { first_name: true } } })),
        c(400, "an origin with a path", () => call("PATCH", CONFIG, { key: x.tenant().live_key, body: { allowed_origins: ["https://a.example/x"] } })),
        c(422, "enabled without an email channel", () => call("PATCH", CONFIG, { key: x.unconfigured().live_key, body: { enabled: true } })),
        ...x.keyCases("PATCH", CONFIG, {})
      ]
    },
    [`GET ${CONFIG}`]: {
      cases: [
        c(200, "the widget's settings", async () => call("GET", CONFIG, { key: await widgetKey(), headers: { origin: ORIGIN } })),
        c(401, "no key", () => call("GET", CONFIG)),
        c(403, "a page on another origin", async () => call("GET", CONFIG, { key: await widgetKey(), headers: { origin: "https://evil.example" } })),
        c(429, "a core key over its rate limit", async () => {
          await widgetKey()
          return call("GET", CONFIG, { key: x.limitedKey() })
        })
      ],
      notCaused: { 400: "documented by the ValidationErrors middleware of the group, but the route has no body or query to fail" }
    },
    [`OPTIONS ${CONFIG}`]: { cases: [preflight(CONFIG)], notCaused: nothingToValidate },
    [`POST ${SUBSCRIBE}`]: {
      cases: [
        c(202, "a sign-up from an allowed page", () => fromPage({ email: newAddress("oa"), consent: true })),
        c(400, "no email", () => fromPage({ consent: true })),
        c(401, "no key", () => call("POST", SUBSCRIBE, { body: { email: newAddress("oa"), consent: true } })),
        c(403, "a page on another origin", () => fromPage({ email: newAddress("oa"), consent: true }, "https://evil.example")),
        c(422, "consent false", () => fromPage({ email: newAddress("oa"), consent: false })),
        c(429, "a core key over its rate limit", async () => {
          await widgetKey()
          return call("POST", SUBSCRIBE, { key: x.limitedKey(), body: { email: newAddress("oa"), consent: true } })
        })
      ],
      notCaused: { ...x.notCausedActorFailures, 503: "the bot check's verifier away (test/newsletter/refusals.test.ts) or a write not confirmed (chaos tests)" }
    },
    [`OPTIONS ${SUBSCRIBE}`]: { cases: [preflight(SUBSCRIBE)], notCaused: nothingToValidate },
    [`GET ${CONFIRM}`]: {
      cases: [
        c(200, "the confirm page of a real link", async () => call("GET", `${CONFIRM}?token=${await token()}`)),
        c(400, "no token", () => call("GET", CONFIRM)),
        c(410, "a forged token", () => call("GET", `${CONFIRM}?token=v1.e30.AAAA`))
      ]
    },
    [`POST ${CONFIRM}`]: {
      cases: [
        c(200, "a real link confirmed", async () => call("POST", CONFIRM, { raw: new URLSearchParams({ token: await token() }).toString(), contentType: FORM })),
        c(400, "no token", () => call("POST", CONFIRM, { raw: "", contentType: FORM })),
        c(410, "a forged token", () => call("POST", CONFIRM, { raw: "token=v1.e30.AAAA", contentType: FORM }))
      ],
      notCaused: { 503: "the newsletter actor not answering in time: needs NATS or the worker away, which the chaos tests cover" }
    }
  }
}
