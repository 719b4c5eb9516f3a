import { expect } from "@effect/vitest"
import { request, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The contacts read routes as the tests call them: with the tenant's live key, failing the test on a non-2xx answer.

export interface TimelineItem { at: string; kind: string; id: string; summary: string; data: Record<string, any> }

export const contactReads = (platform: () => RunningPlatform, tenant: () => TestTenant) => {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await request(platform().baseUrl, method, path, { key: tenant().live_key, ...(body === undefined ? {} : { body }) })
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
    return res.body.data
  }
  const timeline = async (contactId: string, query = ""): Promise<{ items: Array<TimelineItem>; next_cursor: string | null }> =>
    api("GET", `/api/v1/contacts/${contactId}/timeline${query}`)
  return { api, timeline }
}
