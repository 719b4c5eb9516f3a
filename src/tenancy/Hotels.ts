import { Context, Effect, Layer } from "effect"
import { Database } from "../../core/db/Database.ts"

export interface HotelRef {
  readonly hotel_id?: string | undefined
  readonly hotel_code?: string | undefined
  readonly hotel_name?: string | undefined
}

export type HotelResolution =
  | { readonly found: true; readonly hotel_id: string }
  | { readonly found: false; readonly field: "hotel_id" | "hotel_code" | "hotel_name"; readonly value: string }

const CACHE_MS = 30_000

/**
 * Resolves a hotel reference within a tenant: by id, else code, else name (case-insensitive). The database failing is
 * a defect on purpose (the typed `DatabaseFailure`): the HTTP handlers calling this declare no such error, and the
 * error shape answers a `DatabaseUnavailable` defect with 503 + Retry-After.
 */
export class Hotels extends Context.Service<Hotels, {
  readonly resolve: (tenantId: string, ref: HotelRef) => Effect.Effect<HotelResolution>
  /** Drops this process's cached references of an account (one of its hotels changed its code or name here). */
  readonly forget: (tenantId: string) => Effect.Effect<void>
}>()("app/tenancy/Hotels") {
  static readonly layer = Layer.effect(Hotels, Effect.gen(function*() {
    const db = yield* Database
    const cache = new Map<string, { id: string; until: number }>()

    const resolve = Effect.fn("Hotels.resolve")(function*(tenantId: string, ref: HotelRef) {
      const [field, value] = ref.hotel_id !== undefined
        ? ["hotel_id", ref.hotel_id] as const
        : ref.hotel_code !== undefined ? ["hotel_code", ref.hotel_code] as const : ["hotel_name", ref.hotel_name ?? ""] as const
      const cacheKey = `${tenantId}|${field}|${field === "hotel_name" ? value.toLowerCase() : value}`
      const hit = cache.get(cacheKey)
      if (hit && hit.until > Date.now()) return { found: true, hotel_id: hit.id } as HotelResolution
      const rows = yield* db.query((sql) =>
        field === "hotel_id"
          ? sql`SELECT id FROM hotels WHERE tenant_id = ${tenantId} AND id = ${value}::uuid`
          : field === "hotel_code"
          ? sql`SELECT id FROM hotels WHERE tenant_id = ${tenantId} AND code = ${value}`
          : sql`SELECT id FROM hotels WHERE tenant_id = ${tenantId} AND lower(name) = lower(${value})`
      )
      const id = rows[0]?.id as string | undefined
      if (!id) return { found: false, field, value } as HotelResolution
      if (cache.size > 10_000) cache.clear()
      cache.set(cacheKey, { id, until: Date.now() + CACHE_MS })
      return { found: true, hotel_id: id } as HotelResolution
    })
    const forget = Effect.fn("Hotels.forget")(function*(tenantId: string) {
      for (const cacheKey of cache.keys()) if (cacheKey.startsWith(`${tenantId}|`)) cache.delete(cacheKey)
    })
    return Hotels.of({ resolve, forget })
  }))
}
