import { expect } from "@effect/vitest"
import { createKey, createTenant, request, startPlatform, type HttpResult, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The ingress side of the loyalty fault tests: a platform without workers (the test spawns and kills those), a tenant
// with an all-scope key and a programme, and the two ways its requests are sent while workers die.

export interface LoyaltyIngress {
  readonly ingress: RunningPlatform
  readonly tenant: TestTenant
  readonly key: string
  /** One request; a broken connection (a worker killed mid-answer) is status 0, not a thrown error. */
  readonly send: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  /** Sent again, unchanged, on 503 or a broken connection, until the platform gives a definite answer. */
  readonly surely: (method: string, path: string, body?: unknown) => Promise<HttpResult>
  /** Resends `surely` made so far. */
  readonly retried: () => number
}

export const startLoyaltyIngress = async (
  name: string, overrides: NonNullable<Parameters<typeof startPlatform>[1]>["overrides"]
): Promise<LoyaltyIngress> => {
  const ingress = await startPlatform(`chaos_${name}`, { role: "ingress", overrides })
  const tenant = await createTenant(`chaos-${name.replaceAll("_", "-")}`)
  const key = (await createKey(tenant.tenant_id, ["*"], { rate: 10_000_000 })).key
  const program = await request(ingress.baseUrl, "PUT", "/api/v1/loyalty/program", { key, body: { currency: "EUR", points_per_unit: 10, point_value: 0.01 } })
  expect(program.status).toBe(200)
  const send = (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    request(ingress.baseUrl, method, path, { key, ...(body === undefined ? {} : { body }) })
      .catch(() => ({ status: 0, body: undefined, headers: new Headers() }))
  let retried = 0
  const surely = async (method: string, path: string, body?: unknown): Promise<HttpResult> => {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) retried++
      const res = await send(method, path, body)
      if (res.status !== 503 && res.status !== 0) return res
      if (attempt > 200) throw new Error(`${path} never answered (last status ${res.status})`)
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200))
    }
  }
  return { ingress, tenant, key, send, surely, retried: () => retried }
}
