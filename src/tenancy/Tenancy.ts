import { Context, Data, Effect, Layer } from "effect"
import { displayPrefix, generateKey, hashKey, Scopes } from "../auth/keys.ts"
import { Database, type Sql } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { createIntegration } from "../telephony/Integrations.ts"

export class TenancyError extends Data.TaggedError("TenancyError")<{ readonly message: string }> {}

export interface Hotel {
  readonly id: string
  readonly tenant_id: string
  readonly code: string
  readonly name: string
  readonly timezone: string
}

const validTimezone = (tz: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz })
    return true
  } catch {
    return false
  }
}

/**
 * Administration of tenants, keys and hotels (CLI and start-up demo data). A refused request fails with
 * `TenancyError`; the database failing with a typed `DatabaseFailure` (the CLI tells "retry later" from an error).
 */
export class Tenancy extends Context.Service<Tenancy, {
  readonly createTenant: (name: string) => Effect.Effect<{ tenant_id: string; live_key: string; test_key: string }, TenancyError | DatabaseFailure>
  readonly createKey: (tenantId: string, scopes: ReadonlyArray<string>, sandbox: boolean, ratePerMinute?: number) => Effect.Effect<{ key_id: string; key: string }, TenancyError | DatabaseFailure>
  readonly revokeKey: (keyId: string) => Effect.Effect<{ key_id: string; revoked: boolean }, TenancyError | DatabaseFailure>
  readonly createHotel: (tenantId: string, h: { code: string; name: string; timezone: string }) => Effect.Effect<{ hotel_id: string }, TenancyError | DatabaseFailure>
  readonly setChannelMapping: (tenantId: string, m: { code: string; name: string; type: string }) => Effect.Effect<{ code: string; name: string; channel_type: string }, TenancyError | DatabaseFailure>
  readonly listConflicts: (tenantId: string, limit: number) => Effect.Effect<{ conflicts: ReadonlyArray<unknown> }, TenancyError | DatabaseFailure>
  readonly createCtiIntegration: (tenantId: string, provider: string) => Effect.Effect<{ integration_id: string; token: string }, TenancyError | DatabaseFailure>
}>()("app/tenancy/Tenancy") {
  static readonly layer = Layer.effect(Tenancy, Effect.gen(function*() {
    const { attempt } = yield* Database
    const fail = (message: string) => Effect.fail(new TenancyError({ message }))

    const insertKey = async (tx: Sql, tenantId: string, scopes: ReadonlyArray<string>, sandbox: boolean, rate?: number) => {
      const key = generateKey(sandbox)
      const [row] = await tx`
        INSERT INTO api_keys (tenant_id, sandbox, key_hash, display_prefix, scopes, rate_limit_per_minute)
        VALUES (${tenantId}, ${sandbox}, ${hashKey(key)}, ${displayPrefix(key)}, ${scopes as Array<string>}, ${rate ?? null})
        RETURNING id`
      return { key_id: row!.id as string, key }
    }

    const tenantExists = (id: string) =>
      attempt((sql) => sql`SELECT 1 FROM tenants WHERE id::text = ${id}`).pipe(Effect.map((r) => r.length > 0))

    const createTenant = Effect.fn("Tenancy.createTenant")(function*(name: string) {
      if (!name.trim()) return yield* fail("--name must not be empty")
      const taken = yield* attempt((sql) => sql`SELECT 1 FROM tenants WHERE name = ${name}`)
      if (taken.length > 0) return yield* fail(`a tenant named ${JSON.stringify(name)} already exists`)
      return yield* attempt((sql) => sql.begin(async (tx) => {
        const [t] = await tx`INSERT INTO tenants (name) VALUES (${name}) RETURNING id`
        const tenant_id = t!.id as string
        const live = await insertKey(tx as unknown as Sql, tenant_id, ["*"], false)
        const test = await insertKey(tx as unknown as Sql, tenant_id, ["*"], true)
        return { tenant_id, live_key: live.key, test_key: test.key }
      }))
    })

    const createKey = Effect.fn("Tenancy.createKey")(function*(tenantId: string, scopes: ReadonlyArray<string>, sandbox: boolean, rate?: number) {
      if (rate !== undefined && (!Number.isInteger(rate) || rate < 1)) return yield* fail("--rate-limit must be a positive integer (requests per minute)")
      const unknown = scopes.filter((s) => !(Scopes as ReadonlyArray<string>).includes(s))
      if (scopes.length === 0) return yield* fail("--scopes needs at least one scope")
      if (unknown.length > 0) return yield* fail(`unknown scopes: ${unknown.join(", ")}; known: ${Scopes.join(", ")}`)
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      return yield* attempt((sql) => insertKey(sql, tenantId, scopes, sandbox, rate))
    })

    const revokeKey = Effect.fn("Tenancy.revokeKey")(function*(keyId: string) {
      const rows = yield* attempt((sql) =>
        sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id::text = ${keyId} RETURNING id`)
      if (rows.length === 0) return yield* fail(`no key with id ${keyId}`)
      return { key_id: keyId, revoked: true }
    })

    const createHotel = Effect.fn("Tenancy.createHotel")(function*(tenantId: string, h: { code: string; name: string; timezone: string }) {
      if (!h.code.trim() || !h.name.trim()) return yield* fail("--code and --name must not be empty")
      if (!validTimezone(h.timezone)) return yield* fail(`--timezone ${JSON.stringify(h.timezone)} is not an IANA time zone`)
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      const clash = yield* attempt((sql) => sql`
        SELECT code, name FROM hotels WHERE tenant_id = ${tenantId} AND (code = ${h.code} OR lower(name) = lower(${h.name}))`)
      if (clash.length > 0) return yield* fail(`this tenant already has a hotel with code ${h.code} or name ${h.name}`)
      const [row] = yield* attempt((sql) => sql`
        INSERT INTO hotels (tenant_id, code, name, timezone) VALUES (${tenantId}, ${h.code}, ${h.name}, ${h.timezone})
        RETURNING id`)
      return { hotel_id: row!.id as string }
    })

    const setChannelMapping = Effect.fn("Tenancy.setChannelMapping")(function*(tenantId: string, m: { code: string; name: string; type: string }) {
      if (!m.code.trim() || !m.name.trim()) return yield* fail("--code and --name must not be empty")
      if (!["direct", "ota", "tour_operator"].includes(m.type)) return yield* fail("--type must be direct, ota or tour_operator")
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      yield* attempt((sql) => sql`
        INSERT INTO channel_mappings (tenant_id, code, name, channel_type) VALUES (${tenantId}, ${m.code}, ${m.name}, ${m.type})
        ON CONFLICT (tenant_id, code) DO UPDATE SET name = EXCLUDED.name, channel_type = EXCLUDED.channel_type, updated_at = now()`)
      return { code: m.code, name: m.name, channel_type: m.type }
    })

    const listConflicts = Effect.fn("Tenancy.listConflicts")(function*(tenantId: string, limit: number) {
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      const rows = yield* attempt((sql) => sql`
        SELECT id, sandbox, contact_id, other_contact_id, reason, phone, email, source, created_at FROM identity_conflicts
        WHERE tenant_id = ${tenantId} ORDER BY created_at DESC LIMIT ${limit}`)
      return { conflicts: [...rows] }
    })

    const createCtiIntegration = Effect.fn("Tenancy.createCtiIntegration")(function*(tenantId: string, provider: string) {
      if (!/^[a-z0-9][a-z0-9_-]{0,49}$/.test(provider)) return yield* fail("--provider must be lowercase letters, digits, - or _ (max 50)")
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      return yield* attempt((sql) => createIntegration(sql, tenantId, provider))
    })

    return Tenancy.of({ createTenant, createKey, revokeKey, createHotel, setChannelMapping, listConflicts, createCtiIntegration })
  }))
}
