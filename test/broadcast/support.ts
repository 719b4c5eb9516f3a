import { expect } from "@effect/vitest"
import type postgres from "postgres"
import { newContact } from "../support/messaging.ts"
import { request, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"

// Helpers of the broadcast tests: the API as a client calls it, contacts of an audience, waiting for a status.

export const api = (baseUrl: string, tenant: TestTenant) => {
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(baseUrl, method, path, { key: tenant.live_key, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) })
  return {
    call,
    create: async (body: Record<string, unknown>) => {
      const res = await call("POST", "/api/v1/broadcasts", body)
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      return res.body.data.broadcast_id as string
    },
    act: (id: string, action: string) => call("POST", `/api/v1/broadcasts/${id}/${action}`),
    get: async (id: string) => (await call("GET", `/api/v1/broadcasts/${id}`)).body.data,
    recipients: async (id: string, query = "") => {
      const all: Array<Record<string, any>> = []
      let cursor: string | null = null
      do {
        const res = await call("GET", `/api/v1/broadcasts/${id}/recipients?limit=100${query}${cursor === null ? "" : `&cursor=${cursor}`}`)
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        all.push(...res.body.data.recipients)
        cursor = res.body.data.next_cursor
      } while (cursor !== null)
      return all
    },
    /** The broadcast once `check` holds for it (30 s at most). */
    until: (id: string, what: string, check: (b: Record<string, any>) => boolean, timeoutMs = 30_000) =>
      eventually(what, async () => {
        const b = (await call("GET", `/api/v1/broadcasts/${id}`)).body.data
        return check(b) ? b : undefined
      }, timeoutMs)
  }
}

/** `n` contacts tagged `tag` (the audience), each with an email; consent as given. */
export const audience = async (sql: postgres.Sql, baseUrl: string, tenant: TestTenant, tag: string, n: number, consent = true) => {
  const ids: Array<string> = []
  for (let i = 0; i < n; i++) ids.push((await newContact(baseUrl, tenant, { email_consent: consent })).id)
  await sql`UPDATE contacts SET tags = array_append(tags, ${tag}), language = 'es' WHERE id = ANY(${ids}::uuid[])`
  return ids
}

export const tagged = (tag: string) => ({ version: 1, match: { field: "contact.tags", op: "contains_any", value: [tag] } })

export const emailBroadcast = (tag: string, extra: Record<string, unknown> = {}) => ({
  name: `Spring ${tag}`, channel: "email", category: "marketing",
  audience: { definition: tagged(tag) },
  content: {
    subject: "Spring at {{hotel_name}}", text: "Hello {{contact_first_name}}, 20% off.",
    variants: { es: { subject: "Primavera", text: "Hola {{contact_first_name}}, 20% de descuento." } }
  },
  ...extra
})
