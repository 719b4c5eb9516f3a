import { expect } from "@effect/vitest"
import { Schema } from "effect"
import { ContactProfileResponse } from "../../schemas/contact.ts"
import { TimelineResponse } from "../../schemas/timeline.ts"
import { request, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The contacts read routes as the tests call them: with the tenant's live key, failing the test on a non-2xx answer.

export interface TimelineItem { at: string; kind: string; id: string; summary: string; data: Record<string, any> }

/**
 * The profile and timeline answers are written without the schema's encoder (the profile as PostgreSQL builds it,
 * the timeline as JSON.stringify writes it: src/contact/http.ts), so the tests hold each one to its schema instead:
 * it decodes with no key left over and encodes back to the same JSON. A key missing, added or of another type fails.
 */
export const expectSchemaShape = (schema: Schema.Codec<any, any>, body: unknown) => {
  const decoded = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(body, { errors: "all", onExcessProperty: "error" })
  expect(decoded._tag, decoded._tag === "Failure" ? String(decoded.failure) : "").toBe("Success")
  if (decoded._tag === "Success") expect(Schema.encodeSync(schema as Schema.Codec<unknown, unknown>)(decoded.success)).toEqual(body)
}

/** The answer's schema for a contacts read path, where the answer is written without the encoder. */
const shapeOf = (path: string) =>
  /^\/api\/v1\/contacts\/[0-9a-f-]{36}\/timeline(\?|$)/.test(path) ? TimelineResponse
  : /^\/api\/v1\/contacts\/[0-9a-f-]{36}$/.test(path) ? ContactProfileResponse
  : undefined

export const contactReads = (platform: () => RunningPlatform, tenant: () => TestTenant) => {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await request(platform().baseUrl, method, path, { key: tenant().live_key, ...(body === undefined ? {} : { body }) })
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
    const shape = method === "GET" ? shapeOf(path) : undefined
    if (shape !== undefined) expectSchemaShape(shape, res.body)
    return res.body.data
  }
  const timeline = async (contactId: string, query = ""): Promise<{ items: Array<TimelineItem>; next_cursor: string | null }> =>
    api("GET", `/api/v1/contacts/${contactId}/timeline${query}`)
  return { api, timeline }
}
