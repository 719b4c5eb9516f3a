import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Scopes } from "../../schemas/scopes.ts"
import { createKey, createTenant, request, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The scope /openapi.json states for each API-key operation is the scope the route enforces: a key holding one of the
// documented scopes gets past the check, a key holding any other gets 403 naming exactly the documented ones.

let platform: RunningPlatform
let tenant: TestTenant
let doc: { paths: Record<string, Record<string, { security?: Array<Record<string, Array<string>>> }>> }
/** One key per scope, holding only it. */
const keyOf = new Map<string, string>()
const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000"

beforeAll(async () => {
  platform = await startPlatform("scopes")
  tenant = await createTenant("scopes")
  for (const scope of Scopes) if (scope !== "*") keyOf.set(scope, (await createKey(tenant.tenant_id, [scope], { rate: 1_000_000 })).key)
  doc = (await request(platform.baseUrl, "GET", "/openapi.json")).body
}, 60_000)
afterAll(async () => {
  await platform?.stop()
})

/**
 * Operations whose security is the API key: their method, path and the scopes the document names. The telephony
 * webhooks (a CTI token) and the member routes (a member's access token) declare the same `bearer` scheme with
 * tokens of their own, which hold no scopes.
 */
const OTHER_BEARERS = ["/api/webhooks/cti", "/api/loyalty/me/"]
const keyOperations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item)
  .filter(([, op]) => op.security?.some((r) => Object.hasOwn(r, "bearer")) === true && !OTHER_BEARERS.some((p) => path.startsWith(p)))
  .map(([method, op]) => ({ method: method.toUpperCase(), path, scopes: op.security!.flatMap((r) => r.bearer ?? []) })))

const call = (method: string, path: string, scope: string) =>
  request(platform.baseUrl, method, path.replace(/\{provider\}/g, "aircall").replace(/\{\w+\}/g, NO_SUCH_ID), {
    key: keyOf.get(scope)!, ...(["POST", "PUT", "PATCH"].includes(method) ? { body: {} } : {})
  })

describe("the scope each operation documents", () => {
  it("is the scope its route enforces, for every API-key operation", async () => {
    const operations = keyOperations()
    expect(operations.length).toBeGreaterThan(100)
    const unscoped: Array<string> = []
    for (const { method, path, scopes } of operations) {
      const what = `${method} ${path} documents ${JSON.stringify(scopes)}`
      if (scopes.length === 0) {
        unscoped.push(`${method} ${path}`)
        expect((await call(method, path, "surveys:write")).status, what).not.toBe(403)
        continue
      }
      for (const scope of scopes) {
        const res = await call(method, path, scope)
        expect(res.status, `${what}: a key holding ${scope} → ${JSON.stringify(res.body)}`).not.toBe(403)
      }
      const other = Scopes.find((s) => s !== "*" && !scopes.includes(s))!
      const refused = await call(method, path, other)
      expect(refused.status, `${what}: a key holding ${other}`).toBe(403)
      expect(refused.body.error.details.required_scope, what).toBe(scopes.join(" or "))
    }
    // Every API-key route names its scope: one any key could call would be a decision to write here, not an accident.
    expect(unscoped).toEqual([])
  }, 120_000)
})
