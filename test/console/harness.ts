import type { BrowserContext } from "playwright-core"
import { request } from "../support/platform.ts"

// TEST-ONLY STAND-INS, used by walk.browser.test.ts only while the staff and reads branches of issue 27 are not merged
// (STAFF_ROUTES / READ_ROUTES in ./support.ts say whether they are): the browser context calls the API with a bearer
// key instead of a session cookie, and the contract's missing routes are answered here from the existing ones. Nothing
// of this is in the shipped console, which knows only the session cookie. Delete this file once both have landed.

export type Role = "viewer" | "operator" | "admin"

/** GET /api/v1/staff/me answered with a session of `role`, every API call carrying the tenant's key. */
export const keySession = async (context: BrowserContext, o: { key: string; tenantId: string; email: string; role: Role }) => {
  await context.setExtraHTTPHeaders({ authorization: `Bearer ${o.key}` })
  await context.route("**/api/v1/staff/me", (route) => route.fulfill({
    status: 200, contentType: "application/json",
    body: JSON.stringify({ success: true, data: {
      staff: { staff_id: "00000000-0000-4000-8000-000000000001", email: o.email, role: o.role, created_at: new Date().toISOString(), last_signed_in_at: null },
      tenant_id: o.tenantId, role: o.role, csrf_token: "harness", expires_at: new Date(Date.now() + 3_600_000).toISOString()
    } })
  }))
}

/** No session: GET /api/v1/staff/me answers 401 as the contract says. */
export const noSession = (context: BrowserContext) => context.route("**/api/v1/staff/me", (route) => route.fulfill({
  status: 401, contentType: "application/json", body: JSON.stringify({ error: { code: "UNAUTHORIZED", message: "Sign in first" } })
}))

/**
 * GET /api/v1/webhook-deliveries from the per-subscription route that exists (GET /api/v1/webhooks/{id}/deliveries),
 * GET /api/v1/messages from the guest's (GET /api/v1/contacts/{id}/messages), and GET /api/v1/overview from the counts the walk's own setup made (one reservation, contact, journey entry and email
 * today, and the failed webhook delivery).
 */
export const readRoutes = async (context: BrowserContext, o: { baseUrl: string; key: string; webhookId: string; webhookUrl: string; contactId: string }) => {
  await context.route("**/api/v1/messages*", async (route) => {
    const res = await request(o.baseUrl, "GET", `/api/v1/contacts/${o.contactId}/messages`, { key: o.key })
    const messages = res.body.data.messages.map((m: { error: Record<string, unknown> | null }) => ({ ...m, error: m.error && { ...m.error, meaning: null } }))
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ success: true, data: { messages, next_cursor: null } }) })
  })
  await context.route("**/api/v1/webhook-deliveries*", async (route) => {
    const res = await request(o.baseUrl, "GET", `/api/v1/webhooks/${o.webhookId}/deliveries`, { key: o.key })
    const deliveries = res.body.data.deliveries.map((d: Record<string, unknown>) => ({ ...d, webhook_id: o.webhookId, url: o.webhookUrl }))
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ success: true, data: { deliveries, next_cursor: null } }) })
  })
  await context.route("**/api/v1/overview*", async (route) => {
    // Like the real answer: a row per day and hotel with activity, here today's only.
    const today = new Date().toISOString().slice(0, 10)
    const from = new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10)
    const outcomes = (sent: number) => ({ sent, delivered: 0, read: 0, failed: 0, skipped: 0 })
    const days = [{ date: today, hotel_id: null, reservations_received: 1, contacts_created: 1, journey_entries: 1,
      messages: { email: outcomes(1), whatsapp: outcomes(0) }, webhooks: { succeeded: 0, failed: 1 } }]
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ success: true, data: { from, to: today, days } }) })
  })
}
