import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import { uniqueId } from "../support/fixtures.ts"
import { createKey, type HttpResult, type TestTenant } from "../support/platform.ts"

// The hotels', keys' and telephony integrations' entries of test/http/openapi.test.ts's case table, kept here so that
// file only spreads them. The keys:manage routes need keys of their own: the suite's keys hold `*`, which does not
// grant keys:manage.

type Options = { key?: string; body?: unknown }

export interface TenancyCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  readonly call: (method: string, path: string, options?: Options) => Promise<HttpResult>
  /** 401 without a key, 403 with a key lacking the scope, 429 with an all-scope key over its limit. */
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly tenant: () => TestTenant
  readonly other: () => TestTenant
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"

export const tenancyRoutes = (x: TenancyCaseContext): Record<string, RouteCases> => {
  const { c, call } = x
  const as = (method: string, path: string, body?: unknown) => call(method, path, { key: x.tenant().live_key, ...(body === undefined ? {} : { body }) })
  const once = <A>(make: () => Promise<A>) => {
    let made: Promise<A> | undefined
    return () => (made ??= make())
  }
  /** A keys:manage key of the tenant, and one allowed a single request a minute (spent by the first call). */
  const admin = once(() => createKey(x.tenant().tenant_id, ["keys:manage"]).then((k) => k.key))
  const limitedAdmin = once(async () => {
    const k = await createKey(x.tenant().tenant_id, ["keys:manage"], { rate: 1 })
    await call("GET", "/api/v1/keys", { key: k.key })
    return k.key
  })
  const byAdmin = async (method: string, path: string, body?: unknown) =>
    call(method, path, { key: await admin(), ...(body === undefined ? {} : { body }) })
  const adminCases = (method: string, path: string, body?: unknown): Array<Case> => {
    const withBody = body === undefined ? {} : { body }
    return [
      c(401, "no API key", () => call(method, path, withBody)),
      c(403, "an all-scope key: * does not grant keys:manage", () => call(method, path, { key: x.tenant().live_key, ...withBody })),
      c(429, "a keys:manage key over its rate limit", async () => call(method, path, { key: await limitedAdmin(), ...withBody }))
    ]
  }
  const hotel = () => ({ code: uniqueId("OAH"), name: uniqueId("OpenApi hotel"), timezone: "Europe/Madrid", country: "ES", check_in_time: "15:00" })
  const newHotel = async () => (await as("POST", "/api/v1/hotels", hotel())).body.data.hotel_id as string
  const newKey = async () => (await byAdmin("POST", "/api/v1/keys", { name: "doomed", scopes: ["guests:read"], mode: "live" })).body.data.key_id as string
  const newIntegration = async () => (await byAdmin("POST", "/api/v1/telephony/integrations", { provider: "aircall" })).body.data.integration_id as string

  return {
    "POST /api/v1/hotels": {
      cases: [
        c(201, "a new hotel", () => as("POST", "/api/v1/hotels", hotel())),
        c(400, "a time zone that is no IANA name", () => as("POST", "/api/v1/hotels", { ...hotel(), timezone: "Mars/Olympus" })),
        c(409, "the code of a hotel of the account", () => as("POST", "/api/v1/hotels", { ...hotel(), code: x.tenant().hotel_code })),
        ...x.keyCases("POST", "/api/v1/hotels", hotel())
      ]
    },
    "GET /api/v1/hotels": {
      cases: [
        c(200, "the hotels", () => as("GET", "/api/v1/hotels?limit=2")),
        c(400, "a cursor this API did not issue", () => as("GET", "/api/v1/hotels?cursor=nope")),
        ...x.keyCases("GET", "/api/v1/hotels")
      ]
    },
    "GET /api/v1/hotels/{hotel_id}": {
      cases: [
        c(200, "a hotel", () => as("GET", `/api/v1/hotels/${x.tenant().hotel_id}`)),
        c(400, "an id that is no UUID", () => as("GET", "/api/v1/hotels/nope")),
        c(404, "another account's hotel", () => as("GET", `/api/v1/hotels/${x.other().hotel_id}`)),
        ...x.keyCases("GET", `/api/v1/hotels/${NO_SUCH_ID}`)
      ]
    },
    "PATCH /api/v1/hotels/{hotel_id}": {
      cases: [
        c(200, "a changed hotel", async () => as("PATCH", `/api/v1/hotels/${await newHotel()}`, { timezone: "Europe/Lisbon", country: null })),
        c(400, "a time that is no HH:MM", async () => as("PATCH", `/api/v1/hotels/${await newHotel()}`, { check_in_time: "3pm" })),
        c(404, "an unknown hotel", () => as("PATCH", `/api/v1/hotels/${NO_SUCH_ID}`, { name: "x" })),
        c(409, "the code of another hotel of the account", async () =>
          as("PATCH", `/api/v1/hotels/${await newHotel()}`, { code: x.tenant().hotel_code })),
        ...x.keyCases("PATCH", `/api/v1/hotels/${NO_SUCH_ID}`, {})
      ]
    },
    "POST /api/v1/keys": {
      cases: [
        c(201, "a new key, its secret shown once", () => byAdmin("POST", "/api/v1/keys", { name: "ci", scopes: ["guests:read", "bookings:read"], mode: "sandbox" })),
        c(400, "an unknown scope", () => byAdmin("POST", "/api/v1/keys", { name: "ci", scopes: ["guests:delete"], mode: "live" })),
        ...adminCases("POST", "/api/v1/keys", { name: "ci", scopes: ["guests:read"], mode: "live" })
      ]
    },
    "GET /api/v1/keys": {
      cases: [
        c(200, "the keys", () => byAdmin("GET", "/api/v1/keys")),
        c(400, "a limit out of bounds", () => byAdmin("GET", "/api/v1/keys?limit=0")),
        ...adminCases("GET", "/api/v1/keys")
      ]
    },
    "DELETE /api/v1/keys/{key_id}": {
      cases: [
        c(200, "a revoked key", async () => byAdmin("DELETE", `/api/v1/keys/${await newKey()}`)),
        c(400, "an id that is no UUID", () => byAdmin("DELETE", "/api/v1/keys/nope")),
        c(404, "an unknown key", () => byAdmin("DELETE", `/api/v1/keys/${NO_SUCH_ID}`)),
        ...adminCases("DELETE", `/api/v1/keys/${NO_SUCH_ID}`)
      ]
    },
    "POST /api/v1/telephony/integrations": {
      cases: [
        // aircall, the provider the suite already has: a second provider would make the dial case ask which one.
        c(201, "a new integration, its token shown once", () => byAdmin("POST", "/api/v1/telephony/integrations", { provider: "aircall" })),
        c(400, "a provider name in capitals", () => byAdmin("POST", "/api/v1/telephony/integrations", { provider: "Aircall" })),
        ...adminCases("POST", "/api/v1/telephony/integrations", { provider: "aircall" })
      ]
    },
    "GET /api/v1/telephony/integrations": {
      cases: [
        c(200, "the integrations", () => byAdmin("GET", "/api/v1/telephony/integrations")),
        c(400, "a cursor this API did not issue", () => byAdmin("GET", "/api/v1/telephony/integrations?cursor=nope")),
        ...adminCases("GET", "/api/v1/telephony/integrations")
      ]
    },
    "DELETE /api/v1/telephony/integrations/{integration_id}": {
      cases: [
        c(200, "a revoked integration", async () => byAdmin("DELETE", `/api/v1/telephony/integrations/${await newIntegration()}`)),
        c(400, "an id that is no UUID", () => byAdmin("DELETE", "/api/v1/telephony/integrations/nope")),
        c(404, "an unknown integration", () => byAdmin("DELETE", `/api/v1/telephony/integrations/${NO_SUCH_ID}`)),
        ...adminCases("DELETE", `/api/v1/telephony/integrations/${NO_SUCH_ID}`)
      ]
    }
  }
}
