import { Context, Effect, Layer } from "effect"
import { Database, withTenant } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { CdpSettings as Settings, CdpSettingsRequest } from "../../schemas/cdp.ts"

const OFF: Settings = { visitor_tracking: false, allowed_domains: [] }

/**
 * Visitor tracking of one account and mode: off until switched on; the allowed domains (empty: any origin). Read on
 * every events request (one primary-key row), so a change applies to the next request on every ingress.
 */
export class CdpSettings extends Context.Service<CdpSettings, {
  readonly get: (scope: TenantScope) => Effect.Effect<Settings>
  readonly update: (scope: TenantScope, patch: CdpSettingsRequest) => Effect.Effect<Settings>
}>()("app/cdp/CdpSettings") {
  static readonly layer = Layer.effect(CdpSettings, Effect.gen(function*() {
    const db = yield* Database
    const get = Effect.fn("CdpSettings.get")(function*(scope: TenantScope) {
      const [row] = yield* db.query((sql) => withTenant(sql, scope.tenant_id, (tx) => tx<Array<Settings>>`
        SELECT visitor_tracking, allowed_domains FROM cdp_settings WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`))
      return row === undefined ? OFF : { visitor_tracking: row.visitor_tracking, allowed_domains: row.allowed_domains }
    })
    const update = Effect.fn("CdpSettings.update")(function*(scope: TenantScope, patch: CdpSettingsRequest) {
      // Domains compare lower-case and once each.
      const domains = patch.allowed_domains === undefined ? null : [...new Set(patch.allowed_domains.map((d) => d.toLowerCase()))]
      const [row] = yield* db.query((sql) => withTenant(sql, scope.tenant_id, (tx) => tx<Array<Settings>>`
        INSERT INTO cdp_settings (tenant_id, sandbox, visitor_tracking, allowed_domains)
        VALUES (${scope.tenant_id}, ${scope.sandbox}, ${patch.visitor_tracking ?? false}, ${domains ?? []})
        ON CONFLICT (tenant_id, sandbox) DO UPDATE SET
          visitor_tracking = coalesce(${patch.visitor_tracking ?? null}::boolean, cdp_settings.visitor_tracking),
          allowed_domains = coalesce(${domains}::text[], cdp_settings.allowed_domains), updated_at = now()
        RETURNING visitor_tracking, allowed_domains`))
      return { visitor_tracking: row!.visitor_tracking, allowed_domains: row!.allowed_domains }
    })
    return CdpSettings.of({ get, update })
  }))
}
