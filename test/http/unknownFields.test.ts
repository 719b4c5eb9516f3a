import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { Scopes } from "../../src/auth/keys.ts"
import { phone, reservation } from "../support/fixtures.ts"
import { createKey, createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// Unknown body keys over the real platform: accepted and answered as unknown_field warnings on the core write routes
// (batch items each with their own), refused where the contract says so, and the document saying exactly which.
let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("unknown")
  tenant = await createTenant("unknown")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const send = (method: string, path: string, body: unknown) => request(platform.baseUrl, method, path, { key: tenant.live_key, body })
const sendRaw = (method: string, path: string, raw: string) => request(platform.baseUrl, method, path, { key: tenant.live_key, raw })
const unknownFieldsOf = (warnings: ReadonlyArray<{ code: string; field: string }>) =>
  warnings.filter((w) => w.code === "unknown_field").map((w) => w.field)
let n = Math.floor(Math.random() * 1_000_000)
const email = () => `unknown${n++}@gmail.com`

describe("unknown body keys on the core write routes", () => {
  it("walk-through G2: a reservation with a top-level room and a guest's phone_number is 201 with both warnings, the contact created without the phone", async () => {
    const body = reservation({ hotel_code: tenant.hotel_code }, {
      room: "101",
      guests: [{ first_name: "Gia", last_name: "Two", email: email(), phone_number: "+34600111222", is_holder: true }],
      stays: [{ start_date: "2026-12-01", end_date: "2026-12-04", roomtype: "DBL" }]
    })
    const res = await send("POST", "/api/v1/reservations", body)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(unknownFieldsOf(res.body.data.warnings)).toEqual(["guests[0].phone_number", "room", "stays[0].roomtype"])
    expect(res.body.data.warnings).toContainEqual({ code: "unknown_field", field: "guests[0].phone_number", message: "is not a field of this request; it was ignored" })
    // The warning names the key the caller sent, never its value.
    expect(JSON.stringify(res.body.data.warnings)).not.toContain("+34600111222")
    const [contact] = res.body.data.contacts
    expect(contact.contact_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(contact.phone).toBeNull()
    const [row] = await sql`SELECT phone FROM contacts WHERE id = ${contact.contact_id}`
    expect(row!.phone).toBeNull()
  })

  it("a body of known keys only (free-form parts included) carries no unknown_field warning", async () => {
    const res = await send("POST", "/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, {
      metadata: { pms: { anything: ["goes", 1] } },
      guests: [{ first_name: "Kim", email: email(), address: { street: "Calle 1", floor_note: "any key" }, is_holder: true }]
    }))
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(unknownFieldsOf(res.body.data.warnings)).toEqual([])
  })

  it("batch items carry their own warnings", async () => {
    const reservations = await send("POST", "/api/v1/reservations/batch", {
      reservations: [
        reservation({ hotel_code: tenant.hotel_code }, { guests: [{ first_name: "A", email: email(), phone_number: "x" }] }),
        reservation({ hotel_code: tenant.hotel_code }),
        reservation({ hotel_code: tenant.hotel_code }, { rooom: 1 })
      ]
    })
    expect(reservations.status, JSON.stringify(reservations.body)).toBe(200)
    expect(reservations.body.data.results.map((r: { data: { warnings: [] } }) => unknownFieldsOf(r.data.warnings)))
      .toEqual([["guests[0].phone_number"], [], ["rooom"]])

    const guests = await send("POST", "/api/v1/guests/batch", {
      guests: [
        { phone: phone(n++), first_name: "A", last_name: "B", nick: "x" },
        { phone: phone(n++), first_name: "C", last_name: "D" }
      ]
    })
    expect(guests.status, JSON.stringify(guests.body)).toBe(200)
    expect(guests.body.data.results.map((r: { data: { warnings: [] } }) => unknownFieldsOf(r.data.warnings))).toEqual([["nick"], []])
  })

  it("guests, events, fields and webhooks answer their unknown keys, nested ones by path; free-form parts are not unknown", async () => {
    const guest = await send("POST", "/api/v1/guests", {
      phone: phone(n++), first_name: "Ana", last_name: "G", custom_fields: {}, phone_number: "+1",
      communication_preferences: { marketing: true, sms: true },
      hotel_code: tenant.hotel_code,
      booking: { booking_id: `B-${n++}`, check_in: "2026-12-01", check_out: "2026-12-02", guests: [{ first_name: "Bo", age: 7 }] }
    })
    expect(guest.status, JSON.stringify(guest.body)).toBe(201)
    expect(unknownFieldsOf(guest.body.data.warnings)).toEqual(["phone_number", "communication_preferences.sms", "booking.guests[0].age"])

    const event = await send("POST", "/api/v1/events", { event_type: "review.requested", payload: { free: { form: 1 } }, contact: "x" })
    expect(event.status, JSON.stringify(event.body)).toBe(201)
    expect(event.body.data.warnings).toEqual([{ code: "unknown_field", field: "contact", message: "is not a field of this request; it was ignored" }])

    const fields = await send("POST", "/api/v1/fields", { fields: [{ field_key: "shoe_size", field_label: "Shoe", field_type: "number", type: "int" }] })
    expect(fields.status, JSON.stringify(fields.body)).toBe(200)
    expect(unknownFieldsOf(fields.body.data.warnings)).toEqual(["fields[0].type"])

    const hook = await send("POST", "/api/v1/webhooks", { url: "https://93.184.215.14/h", event_types: ["contact.created"], events: ["x"], retry_policy: { attempts: 3 } })
    expect(hook.status, JSON.stringify(hook.body)).toBe(201)
    expect(unknownFieldsOf(hook.body.data.warnings)).toEqual(["events", "retry_policy.attempts"])
    const patched = await send("PATCH", `/api/v1/webhooks/${hook.body.data.id}`, { description: "d", secret: "changed?" })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.data.warnings).toEqual([{ code: "unknown_field", field: "secret", message: "is not a field of this request; it was ignored" }])
  })

  it("the B2B account and contact writes and the CDP reservation answer theirs too", async () => {
    const account = await send("POST", "/b2b/accounts", { name: `Acme ${n++}`, type: "corporate", segment: "x" })
    expect(account.status, JSON.stringify(account.body)).toBe(201)
    expect(unknownFieldsOf(account.body.data.warnings)).toEqual(["segment"])
    const contact = await send("POST", `/b2b/accounts/${account.body.data.account_id}/contacts`, { first_name: "Ana", email: email(), mobile: "+1" })
    expect(contact.status, JSON.stringify(contact.body)).toBe(201)
    expect(unknownFieldsOf(contact.body.data.warnings)).toEqual(["mobile"])
    const cdp = await send("POST", "/api/v1/cdp/reservations", reservation({ hotel_code: tenant.hotel_code }, { visitor: "v", utm: { source: "s", medium_typo: "m" } }))
    expect(cdp.status, JSON.stringify(cdp.body)).toBe(201)
    expect(unknownFieldsOf(cdp.body.data.warnings)).toEqual(["visitor", "utm.medium_typo"])
  })

  it("keys named like Object.prototype members never break an answer (never a 5xx), wherever they are", async () => {
    const names = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]
    for (const name of names) {
      const key = JSON.stringify(name)
      const res = await sendRaw("POST", "/api/v1/reservations", JSON.stringify(reservation({ hotel_code: tenant.hotel_code }, {
        guests: [{ first_name: "P", email: email() }]
      })).replace(/^\{/, `{${key}:{"x":1},`).replace(`"first_name"`, `${key}:1,"first_name"`))
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(201)
      expect(unknownFieldsOf(res.body.data.warnings)).toEqual([name, `guests[0].${name}`])
      for (const [method, path] of [["POST", "/api/v1/guests"], ["POST", "/api/v1/events"], ["POST", "/api/v1/fields"], ["POST", "/api/v1/webhooks"],
        ["PATCH", `/api/v1/webhooks/${randomUUID()}`], ["PUT", "/api/v1/channels/email"], ["POST", "/api/v1/reservations/batch"]] as const) {
        const answer = await sendRaw(method, path, `{${key}:"v"}`)
        expect(answer.status, `${method} ${path} with ${name}: ${JSON.stringify(answer.body)}`).toBeLessThan(500)
        expect(answer.body.success, `${method} ${path}`).toBe(false)
      }
    }
  })

  it("PUT /api/v1/channels/email refuses a key named toString with 400 naming it (it answered 500)", async () => {
    const res = await sendRaw("PUT", "/api/v1/channels/email", `{"from_address":"stay@hotelexample.com","toString":"x"}`)
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.error.details.toString).toEqual(["is not a field of this request"])
  })
})

describe("a partner's own webhook secret", () => {
  const hook = (secret: unknown) => send("POST", "/api/v1/webhooks", { url: "https://93.184.215.14/h", event_types: ["*"], secret })

  it("is taken (base64 with or without whsec_, or raw text, 24 to 75 bytes), stored encrypted and not shown back", async () => {
    const mine = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7)).toString("base64")}`
    for (const secret of [mine, "Tk9UX0FfUkVBTF9TRUNSRVRfQlVUX0xPTkdfRU5PVUdI", "pl41n-t3xt!s3cret#f0r-a-verifier"]) {
      const res = await hook(secret)
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      expect(res.body.data.secret).toBeUndefined()
      expect(JSON.stringify(res.body)).not.toContain(secret)
      const [row] = await sql`SELECT secret_encrypted FROM webhook_subscriptions WHERE id = ${res.body.data.id}`
      expect((row!.secret_encrypted as Buffer).includes(Buffer.from(secret))).toBe(false)
      const rotated = await send("POST", `/api/v1/webhooks/${res.body.data.id}/rotate-secret`, undefined)
      expect(rotated.status).toBe(200)
      expect(rotated.body.data.secret).toMatch(/^whsec_/)
    }
  })

  it("too short, too long, or no secret at all (walk-through M: \"mine\") is 400 naming secret, the value never echoed", async () => {
    for (const secret of ["mine", `whsec_${Buffer.alloc(16, 1).toString("base64")}`, "a".repeat(40), "x1".repeat(60), "with spaces in it that are long enough", 42]) {
      const res = await hook(secret)
      expect(res.status, `${secret}: ${JSON.stringify(res.body)}`).toBe(400)
      expect(Object.keys(res.body.error.details)).toEqual(["secret"])
      if (typeof secret === "string") expect(JSON.stringify(res.body)).not.toContain(secret)
    }
  })
})

/** Path parameters well-formed enough that the body is what the route judges (ids: a UUID nobody has). */
const PATH_VALUES: Record<string, string> = { name: "welcome_stay", language: "en" }

interface Operation { readonly requestBody?: { readonly content?: Record<string, { readonly schema?: unknown }> } }
type JsonSchema = Record<string, unknown>

/** Routes whose caller is not an account key: the probe cannot reach their body. Their behaviour is tested in their family. */
const NOT_PROBED = new Map([
  ["POST /api/webhooks/cti", "CTI token; the provider's record is free-form"],
  ["POST /api/webhooks/cti/{provider}", "CTI token; the provider's record is free-form"],
  ["POST /api/webhooks/whatsapp", "Meta's signature; Meta's envelope is free-form"],
  ["POST /api/loyalty/club/exchange", "a club member's token"],
  ["POST /api/v1/website-events", "a website source key; refusal tested in test/website"],
  ["POST /api/v1/website-events/hooks/{token}", "a website hook token; refusal tested in test/website"],
  ["POST /api/public/newsletter/confirm", "a form post from the confirmation page"],
  ["POST /api/oidc/interaction/{uid}/login", "an oidc-provider interaction form"],
  ["POST /api/oidc/interaction/{uid}/otp", "an oidc-provider interaction form"]
])

describe("the document says which bodies accept unknown keys", () => {
  it("additionalProperties: false on a route's body iff that route refuses an unknown key", async () => {
    // Every scope named: a scope that "*" does not grant (one that manages keys) included.
    const everyScope = await createKey(tenant.tenant_id, Scopes)
    const doc = (await request(platform.baseUrl, "GET", "/openapi.json")).body
    const resolve = (s: unknown): JsonSchema => {
      const schema = s as JsonSchema
      return typeof schema?.$ref === "string" ? resolve(doc.components.schemas[schema.$ref.split("/").pop()!]) : schema
    }
    /** Closed: the body's object (each member, for a union of objects) has additionalProperties: false. */
    const closed = (s: unknown): boolean => {
      const schema = resolve(s)
      const members = (schema.anyOf ?? schema.oneOf) as Array<unknown> | undefined
      return members ? members.map(resolve).filter((m) => m.type === "object").every((m) => closed(m)) : schema.additionalProperties === false
    }
    /** Somewhere under the body (components followed): any additionalProperties: false left. */
    const closedAnywhere = (s: unknown, seen = new Set<unknown>()): boolean => {
      if (typeof s !== "object" || s === null || seen.has(s)) return false
      seen.add(s)
      const schema = s as JsonSchema
      if (schema.additionalProperties === false) return true
      if (typeof schema.$ref === "string") return closedAnywhere(resolve(schema), seen)
      return Object.entries(schema).some(([k, v]) => !["enum", "const", "examples", "default"].includes(k) && closedAnywhere(v, seen))
    }
    const verdicts: Array<string> = []
    const probed: Array<string> = []
    for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const schema = op.requestBody?.content?.["application/json"]?.schema
        if (schema === undefined) continue
        const route = `${method.toUpperCase()} ${path}`
        if (NOT_PROBED.has(route)) continue
        const res = await request(platform.baseUrl, method.toUpperCase(), path.replace(/\{([^}]+)\}/g, (_, p: string) => PATH_VALUES[p] ?? randomUUID()), {
          key: everyScope.key, body: { zz_not_a_field: 1 }
        })
        expect(res.status, `${route}: ${JSON.stringify(res.body)}`).toBeLessThan(500)
        expect([401, 403], `${route} is reachable with an account key`).not.toContain(res.status)
        probed.push(route)
        // 400 in the core shape; 422 where the group answers every schema failure so (segments, broadcasts, privacy).
        const refuses = (res.status === 400 || res.status === 422) && JSON.stringify(res.body.error?.details ?? {}).includes("zz_not_a_field")
        if (refuses !== closed(schema)) verdicts.push(`${route}: ${refuses ? "refuses" : "accepts"} unknown keys, documented ${closed(schema) ? "closed" : "open"}`)
        if (!refuses && closedAnywhere(schema)) verdicts.push(`${route}: accepts unknown keys, a nested object documented closed`)
      }
    }
    expect(verdicts).toEqual([])
    expect(probed).toEqual(expect.arrayContaining(["POST /api/v1/reservations", "PUT /api/v1/channels/email", "PATCH /api/v1/webhooks/{id}"]))
    const documented = Object.entries<Record<string, Operation>>(doc.paths)
      .flatMap(([path, item]) => Object.entries(item).map(([m]) => `${m.toUpperCase()} ${path}`))
    for (const route of NOT_PROBED.keys()) expect(documented, `${route} still documented`).toContain(route)
  })
})
