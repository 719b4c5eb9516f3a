import { Context, Effect, Layer } from "effect"
import { credentialHash, randomCredential } from "../../core/credentials.ts"
import type { Integration } from "../../schemas/security.ts"
import { Database } from "../../core/db/Database.ts"

const PREFIX = "svccti_"
const CACHE_MS = 5_000

export const generateCtiToken = (): string => randomCredential(PREFIX)
const hash = credentialHash

/** Telephony integrations: one webhook token per tenant + provider, stored as a hash. */
export class Integrations extends Context.Service<Integrations, {
  readonly authenticate: (token: string) => Effect.Effect<Integration | undefined>
}>()("app/telephony/Integrations") {
  static readonly layer = Layer.effect(Integrations, Effect.gen(function*() {
    const { sql } = yield* Database
    const cache = new Map<string, { value: Integration | undefined; until: number }>()
    const authenticate = Effect.fn("Integrations.authenticate")(function*(token: string) {
      if (!/^svccti_[0-9A-Za-z]{20,100}$/.test(token)) return undefined
      const h = hash(token)
      const key = h.toString("base64")
      const hit = cache.get(key)
      if (hit && hit.until > Date.now()) return hit.value
      const [row] = yield* Effect.promise(() => sql`
        SELECT id, tenant_id, provider FROM cti_integrations WHERE token_hash = ${h} AND revoked_at IS NULL`)
      const value: Integration | undefined = row && { integration_id: row.id as string, tenant_id: row.tenant_id as string, provider: row.provider as string }
      if (cache.size > 10_000) cache.clear()
      cache.set(key, { value, until: Date.now() + CACHE_MS })
      return value
    })
    return Integrations.of({ authenticate })
  }))
}

/** Creates an integration and returns its token (shown once). */
export const createIntegration = async (sql: import("../../core/db/Database.ts").Sql, tenantId: string, provider: string) => {
  const token = generateCtiToken()
  const [row] = await sql`
    INSERT INTO cti_integrations (tenant_id, provider, token_hash) VALUES (${tenantId}, ${provider}, ${hash(token)}) RETURNING id`
  return { integration_id: row!.id as string, token }
}
