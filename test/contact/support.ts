import { expect } from "@effect/vitest"
import { Schema } from "effect"
import { ContactProfileResponse } from "../../schemas/contact.ts"
import { TimelineResponse } from "../../schemas/timeline.ts"
import { request, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The contacts read routes as the tests call them: with the tenant's live key, failing the test on a non-2xx answer.

export interface TimelineItem { at: string; kind: string; id: string; summary: string; data: Record<string, any> }

/**
 * The profile's and the timeline's answers are written without the schema's encoder (PostgreSQL builds them:
 * src/contact/profile.ts and src/contact/timeline.ts, ADRs 0037 and 0038), so the tests hold them to their schemas
 * instead: an answer decodes with no key left over and encodes back to the same JSON. A key missing, added, of another
 * type or out of the schema's order fails.
 */
const expectSchemaShape = (schema: Schema.Codec<any, any>, body: unknown) => {
  const decoded = Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown>)(body, { errors: "all", onExcessProperty: "error" })
  expect(decoded._tag, decoded._tag === "Failure" ? String(decoded.failure) : "").toBe("Success")
  if (decoded._tag !== "Success") return
  const encoded = Schema.encodeSync(schema as Schema.Codec<unknown, unknown>)(decoded.success)
  expect(encoded).toEqual(body)
  // The same keys in the same order (toEqual ignores the order).
  expect(JSON.stringify(encoded)).toBe(JSON.stringify(body))
}

/** The schema of a contact's profile or timeline answer, by the path read; undefined for any other path. */
const shapeOf = (path: string) =>
  /^\/api\/v1\/contacts\/[0-9a-f-]{36}\/timeline(\?|$)/.test(path) ? TimelineResponse
  : /^\/api\/v1\/contacts\/[0-9a-f-]{36}$/.test(path) ? ContactProfileResponse
  : undefined

/** A GET answer of `path` held to its schema (`expectSchemaShape`) when it is a profile or a timeline. */
export const expectReadShape = (path: string, body: unknown) => {
  const shape = shapeOf(path)
  if (shape !== undefined) expectSchemaShape(shape, body)
}

export const contactReads = (platform: () => RunningPlatform, tenant: () => TestTenant) => {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await request(platform().baseUrl, method, path, { key: tenant().live_key, ...(body === undefined ? {} : { body }) })
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
    if (method === "GET") expectReadShape(path, res.body)
    return res.body.data
  }
  const timeline = async (contactId: string, query = ""): Promise<{ items: Array<TimelineItem>; next_cursor: string | null }> =>
    api("GET", `/api/v1/contacts/${contactId}/timeline${query}`)
  return { api, timeline }
}
