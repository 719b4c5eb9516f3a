import { Context, Data, Effect, Layer, Result, Schema } from "effect"
import { Scopes } from "../auth/keys.ts"
import { actAsTenant, Database, type Sql, type Tx } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import { isProviderName } from "../../schemas/apiKey.ts"
import { CreateHotelRequest, type Hotel } from "../../schemas/hotel.ts"
import { issueDetails } from "../http/issues.ts"
import { createIntegration } from "../telephony/Integrations.ts"
import { createHotel as insertHotel } from "./hotelStore.ts"
import { insertKey, revokeKey as revokeStoredKey } from "./keyStore.ts"

export class TenancyError extends Data.TaggedError("TenancyError")<{ readonly message: string }> {}

/** What `gep hotel create` takes: the API's `CreateHotelRequest`, checked by the same schema. */
export type HotelInput = { readonly [K in keyof CreateHotelRequest]: CreateHotelRequest[K] | undefined }
const decodeHotel = Schema.decodeUnknownResult(CreateHotelRequest, { errors: "all" })
/** The CLI flag of each field, to name it in a refusal. */
const HOTEL_FLAGS: Record<string, string> = { default_language: "language", check_in_time: "check-in-time", check_out_time: "check-out-time" }

/**
 * Administration of tenants, keys and hotels (CLI and start-up demo data). A refused request fails with
 * `TenancyError`; the database failing with a typed `DatabaseFailure` (the CLI tells "retry later" from an error).
 */
export class Tenancy extends Context.Service<Tenancy, {
  readonly createTenant: (name: string) => Effect.Effect<{ tenant_id: string; live_key: string; test_key: string }, TenancyError | DatabaseFailure>
  readonly createKey: (tenantId: string, scopes: ReadonlyArray<string>, sandbox: boolean, ratePerMinute?: number, name?: string) => Effect.Effect<{ key_id: string; key: string }, TenancyError | DatabaseFailure>
  readonly revokeKey: (keyId: string) => Effect.Effect<{ key_id: string; revoked: boolean }, TenancyError | DatabaseFailure>
  readonly createHotel: (tenantId: string, h: HotelInput) => Effect.Effect<Hotel, TenancyError | DatabaseFailure>
  readonly setChannelMapping: (tenantId: string, m: { code: string; name: string; type: string }) => Effect.Effect<{ code: string; name: string; channel_type: string }, TenancyError | DatabaseFailure>
  readonly listConflicts: (tenantId: string, limit: number) => Effect.Effect<{ conflicts: ReadonlyArray<unknown> }, TenancyError | DatabaseFailure>
  readonly createCtiIntegration: (tenantId: string, provider: string) => Effect.Effect<{ integration_id: string; token: string }, TenancyError | DatabaseFailure>
}>()("app/tenancy/Tenancy") {
  static readonly layer = Layer.effect(Tenancy, Effect.gen(function*() {
    const { attempt, attemptTransaction } = yield* Database
    const fail = (message: string) => Effect.fail(new TenancyError({ message }))

    const newKey = (sql: Sql | Tx, tenantId: string, scopes: ReadonlyArray<string>, sandbox: boolean, rate?: number, name?: string) =>
      insertKey(sql, tenantId, { scopes, sandbox, rate_limit_per_minute: rate, name }).then(({ key_id, key }) => ({ key_id, key }))

    const tenantExists = (id: string) =>
      attempt((sql) => sql`SELECT 1 FROM tenants WHERE id::text = ${id}`).pipe(Effect.map((r) => r.length > 0))

    const createTenant = Effect.fn("Tenancy.createTenant")(function*(name: string) {
      if (!name.trim()) return yield* fail("--name must not be empty")
      const taken = yield* attempt((sql) => sql`SELECT 1 FROM tenants WHERE name = ${name}`)
      if (taken.length > 0) return yield* fail(`a tenant named ${JSON.stringify(name)} already exists`)
      return yield* attempt((sql) => sql.begin(async (tx) => {
        const [t] = await tx`INSERT INTO tenants (name) VALUES (${name}) RETURNING id`
        const tenant_id = t!.id as string
        const live = await newKey(tx, tenant_id, ["*"], false)
        const test = await newKey(tx, tenant_id, ["*"], true)
        return { tenant_id, live_key: live.key, test_key: test.key }
      }))
    })

    const createKey = Effect.fn("Tenancy.createKey")(function*(tenantId: string, scopes: ReadonlyArray<string>, sandbox: boolean, rate?: number, name?: string) {
      if (rate !== undefined && (!Number.isInteger(rate) || rate < 1)) return yield* fail("--rate-limit must be a positive integer (requests per minute)")
      const unknown = scopes.filter((s) => !(Scopes as ReadonlyArray<string>).includes(s))
      if (scopes.length === 0) return yield* fail("--scopes needs at least one scope")
      if (unknown.length > 0) return yield* fail(`unknown scopes: ${unknown.join(", ")}; known: ${Scopes.join(", ")}`)
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      return yield* attempt((sql) => newKey(sql, tenantId, scopes, sandbox, rate, name))
    })

    const revokeKey = Effect.fn("Tenancy.revokeKey")(function*(keyId: string) {
      const revoked = yield* attempt((sql) => revokeStoredKey(sql, keyId))
      if (revoked === undefined) return yield* fail(`no key with id ${keyId}`)
      return { key_id: keyId, revoked: true }
    })

    /** The same checks and the same write as `POST /api/v1/hotels`, refusals naming the CLI's flags. */
    const createHotel = Effect.fn("Tenancy.createHotel")(function*(tenantId: string, h: HotelInput) {
      const given = Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined))
      const decoded = decodeHotel(given)
      if (Result.isFailure(decoded)) {
        const details = issueDetails(decoded.failure.issue)
        return yield* fail(Object.entries(details).map(([field, messages]) => `--${HOTEL_FLAGS[field] ?? field} ${messages.join("; ")}`).join(", "))
      }
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      const created = yield* attemptTransaction(async (tx) => {
        await actAsTenant(tx, tenantId)
        return insertHotel(tx, tenantId, decoded.success)
      })
      if ("clash" in created) return yield* fail(`this tenant already has a hotel with this ${created.clash} (--${created.clash})`)
      return created
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
      if (!isProviderName(provider)) return yield* fail("--provider must be lowercase letters, digits, - or _ (max 50)")
      if (!(yield* tenantExists(tenantId))) return yield* fail(`no tenant with id ${tenantId}`)
      const { integration_id, token } = yield* attempt((sql) => createIntegration(sql, tenantId, provider))
      return { integration_id, token }
    })

    return Tenancy.of({ createTenant, createKey, revokeKey, createHotel, setChannelMapping, listConflicts, createCtiIntegration })
  }))
}
