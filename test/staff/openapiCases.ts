import { createHash, randomUUID } from "node:crypto"
import type postgres from "postgres"
import { WINDOW_MS, windowStartOf } from "../../src/auth/slidingWindow.ts"
import { digest } from "../../src/oidc/secrets.ts"
import type { Case, RouteCases } from "../http/rawRouteCases.ts"
import { createKey, type HttpResult, type TestTenant } from "../support/platform.ts"

// The staff and audit routes' entries of test/http/openapi.test.ts's case table, kept here so that file only spreads
// them. Their keys are made here (staff:manage is not granted by `*`); a session is signed in with a code written
// straight to the table (this file's platform has no SMTP server: test/staff/signIn.test.ts follows the email).

export interface StaffCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  readonly call: (method: string, path: string, options?: { key?: string; raw?: string; headers?: Record<string, string>; body?: unknown }) => Promise<HttpResult>
  readonly sql: postgres.Sql
  readonly tenant: () => TestTenant
}

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"
const NO_QUERY_OR_BODY_422 = "documented by the group's validation middleware; this route has no body to fail"
let n = 0
const email = () => `openapi.staff.${Date.now().toString(36)}${n++}@hotelexample.com`

/** Fill a rate-limit bucket's shared counters (previous, current and next minute) before any ingress loads it. */
const exhaust = async (sql: postgres.Sql, bucket: string) => {
  const now = windowStartOf(Date.now())
  for (const start of [now - WINDOW_MS, now, now + WINDOW_MS]) {
    await sql`INSERT INTO rate_counters (bucket, window_start, count) VALUES (${bucket}, ${new Date(start)}, 1000000000)
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = EXCLUDED.count`
  }
}

export const staffRoutes = (x: StaffCaseContext): Record<string, RouteCases> => {
  const { c } = x
  const keys = new Map<string, Promise<string>>()
  const keyOf = (name: "manager" | "narrow" | "limited") => {
    if (!keys.has(name)) {
      const scopes = name === "narrow" ? ["guests:read"] : ["*", "staff:manage"]
      keys.set(name, createKey(x.tenant().tenant_id, scopes).then(async (k) => {
        if (name === "limited") await exhaust(x.sql, k.key_id)
        return k.key
      }))
    }
    return keys.get(name)!
  }
  const as = async (method: string, path: string, body?: unknown) => x.call(method, path, { key: await keyOf("manager"), ...(body === undefined ? {} : { body }) })
  const keyCases = (method: string, path: string, body?: unknown): Array<Case> => {
    const withBody = body === undefined ? {} : { body }
    return [
      c(401, "no API key", () => x.call(method, path, withBody)),
      c(403, "a key without the route's scope", async () => x.call(method, path, { key: await keyOf("narrow"), ...withBody })),
      c(429, "a key over its rate limit", async () => x.call(method, path, { key: await keyOf("limited"), ...withBody }))
    ]
  }
  const newStaff = async (address = email()) => (await as("POST", "/api/v1/staff", { email: address, role: "admin" })).body.data.staff_id as string
  /** An open code of a new staff member, written as the sign-in writes it. */
  const openCode = async () => {
    const address = email()
    const staffId = await newStaff(address)
    const id = randomUUID()
    await x.sql`INSERT INTO staff_sign_in_codes (id, tenant_id, staff_id, code_hash, expires_at)
      VALUES (${id}, ${x.tenant().tenant_id}, ${staffId}, ${digest("123456", id)}, now() + interval '10 minutes')`
    return address
  }
  const session = async () => {
    const res = await x.call("POST", "/api/v1/staff/sign-in/verify", { body: { email: await openCode(), code: "123456" } })
    return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, csrf: res.body.data.csrf_token as string }
  }
  const addressBucket = (kind: string, address: string) => `staff-${kind}:${createHash("sha256").update(address).digest("hex")}`
  return {
    "POST /api/v1/staff": {
      cases: [
        c(201, "a new staff member", () => as("POST", "/api/v1/staff", { email: email(), role: "viewer" })),
        c(409, "an address already active", async () => {
          const address = email()
          await newStaff(address)
          return as("POST", "/api/v1/staff", { email: address, role: "operator" })
        }),
        c(422, "an unknown role", () => as("POST", "/api/v1/staff", { email: email(), role: "owner" })),
        c(400, "a body that is not JSON", async () => x.call("POST", "/api/v1/staff", { key: await keyOf("manager"), raw: "{" })),
        ...keyCases("POST", "/api/v1/staff", { email: email(), role: "viewer" })
      ]
    },
    "GET /api/v1/staff": {
      cases: [
        c(200, "the staff", () => as("GET", "/api/v1/staff?limit=2")),
        c(400, "a limit out of range", () => as("GET", "/api/v1/staff?limit=0")),
        ...keyCases("GET", "/api/v1/staff")
      ],
      notCaused: { 422: NO_QUERY_OR_BODY_422 }
    },
    "PATCH /api/v1/staff/{staff_id}": {
      cases: [
        c(200, "a role changed", async () => as("PATCH", `/api/v1/staff/${await newStaff()}`, { role: "viewer" })),
        c(404, "an unknown id", () => as("PATCH", `/api/v1/staff/${NO_SUCH_ID}`, { role: "viewer" })),
        c(400, "an id that is no UUID", () => as("PATCH", "/api/v1/staff/nope", { role: "viewer" })),
        c(422, "an unknown role", async () => as("PATCH", `/api/v1/staff/${NO_SUCH_ID}`, { role: "owner" })),
        ...keyCases("PATCH", `/api/v1/staff/${NO_SUCH_ID}`, { role: "viewer" })
      ]
    },
    "DELETE /api/v1/staff/{staff_id}": {
      cases: [
        c(204, "a member removed", async () => as("DELETE", `/api/v1/staff/${await newStaff()}`)),
        c(404, "an unknown id", () => as("DELETE", `/api/v1/staff/${NO_SUCH_ID}`)),
        c(400, "an id that is no UUID", () => as("DELETE", "/api/v1/staff/nope")),
        ...keyCases("DELETE", `/api/v1/staff/${NO_SUCH_ID}`)
      ],
      notCaused: { 422: NO_QUERY_OR_BODY_422 }
    },
    "POST /api/v1/staff/sign-in": {
      cases: [
        c(202, "any address", () => x.call("POST", "/api/v1/staff/sign-in", { body: { email: email() } })),
        c(422, "no address", () => x.call("POST", "/api/v1/staff/sign-in", { body: { email: "nobody" } })),
        c(400, "a body that is not JSON", () => x.call("POST", "/api/v1/staff/sign-in", { raw: "{" })),
        c(429, "an address asked for too often", async () => {
          const address = email()
          await exhaust(x.sql, addressBucket("email", address))
          return x.call("POST", "/api/v1/staff/sign-in", { body: { email: address } })
        })
      ]
    },
    "POST /api/v1/staff/sign-in/verify": {
      cases: [
        c(200, "the right code", async () => x.call("POST", "/api/v1/staff/sign-in/verify", { body: { email: await openCode(), code: "123456" } })),
        c(422, "a wrong code", async () => x.call("POST", "/api/v1/staff/sign-in/verify", { body: { email: await openCode(), code: "654321" } })),
        c(400, "a body that is not JSON", () => x.call("POST", "/api/v1/staff/sign-in/verify", { raw: "{" })),
        c(429, "an address tried too often", async () => {
          const address = email()
          await exhaust(x.sql, addressBucket("verify", address))
          return x.call("POST", "/api/v1/staff/sign-in/verify", { body: { email: address, code: "123456" } })
        })
      ]
    },
    "GET /api/v1/staff/me": {
      cases: [
        c(200, "the session", async () => x.call("GET", "/api/v1/staff/me", { headers: { cookie: (await session()).cookie } })),
        c(401, "no session", () => x.call("GET", "/api/v1/staff/me")),
        c(403, "a session from another site", async () =>
          x.call("GET", "/api/v1/staff/me", { headers: { cookie: (await session()).cookie, "sec-fetch-site": "cross-site" } }))
      ]
    },
    "POST /api/v1/staff/sign-out": {
      cases: [
        c(204, "signed out", async () => {
          const s = await session()
          return x.call("POST", "/api/v1/staff/sign-out", { headers: { cookie: s.cookie, "x-csrf-token": s.csrf } })
        }),
        c(401, "no session", () => x.call("POST", "/api/v1/staff/sign-out")),
        c(403, "no CSRF token", async () => x.call("POST", "/api/v1/staff/sign-out", { headers: { cookie: (await session()).cookie } }))
      ]
    },
    "GET /api/v1/audit": {
      cases: [
        c(200, "the entries", () => as("GET", "/api/v1/audit?limit=5")),
        c(200, "a staff session's entries (an admin)", async () => x.call("GET", "/api/v1/audit?action=staff.signed_in", { headers: { cookie: (await session()).cookie } })),
        c(400, "a contact_id that is no UUID", () => as("GET", "/api/v1/audit?contact_id=nope")),
        ...keyCases("GET", "/api/v1/audit")
      ],
      notCaused: { 422: NO_QUERY_OR_BODY_422 }
    }
  }
}
