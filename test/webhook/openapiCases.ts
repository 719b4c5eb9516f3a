import type postgres from "postgres"
import type { Case } from "../http/rawRouteCases.ts"
import type { HttpResult, TestTenant } from "../support/platform.ts"

// The entries of test/http/openapi.test.ts's case table for the webhook test, resend and replay routes, kept here so
// that file only spreads them. The subscriptions are disabled: the worker logs their attempts as skipped, never
// calls out.

export interface WebhookCaseContext {
  readonly c: (status: number, name: string, send: () => Promise<HttpResult>) => Case
  /** A request with the tenant's live key. */
  readonly as: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  readonly keyCases: (method: string, path: string, body?: unknown) => Array<Case>
  readonly nulParam: (method: string, path: string) => Case
  readonly sql: postgres.Sql
  readonly tenant: () => TestTenant
  readonly newSubscription: () => Promise<{ id: string }>
  readonly noSuchId: string
}

const UNAVAILABLE = "the database away while the command is written: the chaos tests cut it"
const W = "/api/v1/webhooks"

export const webhookRoutes = (x: WebhookCaseContext) => {
  const { c, as } = x
  const since = () => new Date(Date.now() - 3_600_000).toISOString()
  /** A past delivery of a new subscription, its event's body kept (as the fan-out keeps it). */
  const pastDelivery = async () => {
    const sub = await x.newSubscription()
    const tenant = x.tenant()
    const [row] = await x.sql`
      WITH e AS (
        INSERT INTO webhook_events (subscription_id, event_id, tenant_id, sandbox, event_type, body)
        VALUES (${sub.id}, gen_random_uuid()::text, ${tenant.tenant_id}, false, 'broadcast.completed', '{"event_id":"x"}')
        RETURNING event_id)
      INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome, duration_ms)
      SELECT gen_random_uuid(), ${sub.id}, ${tenant.tenant_id}, false, e.event_id, 'broadcast.completed', 1, 'failed', 5 FROM e
      RETURNING id`
    return { sub, delivery: row!.id as string }
  }
  return {
    [`POST ${W}/{id}/test`]: {
      cases: [
        c(202, "a test event sent", async () => as("POST", `${W}/${(await x.newSubscription()).id}/test`)),
        c(404, "an unknown id", () => as("POST", `${W}/${x.noSuchId}/test`)),
        x.nulParam("POST", `${W}/%00/test`),
        ...x.keyCases("POST", `${W}/${x.noSuchId}/test`)
      ],
      notCaused: { 503: UNAVAILABLE }
    },
    [`POST ${W}/{id}/deliveries/{delivery_id}/resend`]: {
      cases: [
        c(202, "a past event sent again", async () => {
          const { sub, delivery } = await pastDelivery()
          return as("POST", `${W}/${sub.id}/deliveries/${delivery}/resend`)
        }),
        c(404, "an unknown delivery", async () => as("POST", `${W}/${(await x.newSubscription()).id}/deliveries/${x.noSuchId}/resend`)),
        x.nulParam("POST", `${W}/${x.noSuchId}/deliveries/%00/resend`),
        ...x.keyCases("POST", `${W}/${x.noSuchId}/deliveries/${x.noSuchId}/resend`)
      ],
      notCaused: { 503: UNAVAILABLE }
    },
    "GET /api/v1/webhook-deliveries": {
      cases: [
        c(200, "every subscription's attempts, a failed one with its URL and last attempt", async () => {
          const { sub } = await pastDelivery()
          return as("GET", `/api/v1/webhook-deliveries?webhook_id=${sub.id}&status=failed&limit=5`)
        }),
        c(400, "a status that is no outcome", () => as("GET", "/api/v1/webhook-deliveries?status=bounced")),
        c(400, "a from that is no date", () => as("GET", "/api/v1/webhook-deliveries?from=yesterday")),
        ...x.keyCases("GET", "/api/v1/webhook-deliveries")
      ]
    },
    [`POST ${W}/{id}/replay`]: {
      cases: [
        c(202, "a window replayed", async () => as("POST", `${W}/${(await x.newSubscription()).id}/replay`, { since: since(), event_types: ["broadcast.completed"] })),
        c(400, "a window reaching back more than 14 days", async () =>
          as("POST", `${W}/${(await x.newSubscription()).id}/replay`, { since: new Date(Date.now() - 15 * 86_400_000).toISOString() })),
        c(404, "an unknown id", () => as("POST", `${W}/${x.noSuchId}/replay`, { since: since() })),
        c(429, "a replay still being sent", async () => {
          const sub = await x.newSubscription()
          await x.sql`INSERT INTO webhook_replays (id, subscription_id, tenant_id, sandbox, since, until, events)
            VALUES (gen_random_uuid(), ${sub.id}, ${x.tenant().tenant_id}, false, now() - interval '1 hour', now(), 1)`
          return as("POST", `${W}/${sub.id}/replay`, { since: since() })
        }),
        ...x.keyCases("POST", `${W}/${x.noSuchId}/replay`, { since: since() })
      ],
      notCaused: { 503: UNAVAILABLE }
    }
  }
}
