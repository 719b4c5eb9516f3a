import { Effect } from "effect"
import type { Sql } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { ValidationFailed } from "../../schemas/errors.ts"
import { pageLimit } from "../http/cursor.ts"

// The read side of a website source: its delivery log (14 days, keyset pages) and its event catalogue.

export const RETENTION_DAYS = 14

const encode = (at: Date, id: string) => Buffer.from(`${at.toISOString()}|${id}`).toString("base64url")
const decode = (cursor: string) => {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|")
  return at && id && !Number.isNaN(Date.parse(at)) && /^\d{1,19}$/.test(id) ? { at, id } : undefined
}
const iso = (d: unknown) => (d === null ? null : (d as Date).toISOString())

/**
 * Newest first. Rows past the retention are never shown and are deleted as the log is read (a source nobody reads
 * keeps them until then: bounded by its rate limit).
 */
export const deliveryPage = (sql: Sql, sourceId: string, query: { readonly limit?: string; readonly cursor?: string }) =>
  Effect.gen(function*() {
    const limit = pageLimit(query.limit)
    if (limit === undefined) return yield* ValidationFailed.of("Invalid request: limit must be an integer from 1 to 100", { limit: ["must be an integer from 1 to 100"] })
    const before = query.cursor === undefined ? undefined : decode(query.cursor)
    if (query.cursor !== undefined && before === undefined) {
      return yield* ValidationFailed.of("Invalid request: cursor is not one this API returned", { cursor: ["is not a cursor this API returned"] })
    }
    const rows = yield* Effect.promise(async () => {
      await sql`DELETE FROM website_deliveries WHERE source_id = ${sourceId} AND received_at < now() - make_interval(days => ${RETENTION_DAYS})`
      return sql`
        SELECT * FROM website_deliveries WHERE source_id = ${sourceId}
          AND received_at >= now() - make_interval(days => ${RETENTION_DAYS})
          AND (${before?.at ?? null}::timestamptz IS NULL OR (received_at, id) < (${before?.at ?? null}::timestamptz, ${before?.id ?? "0"}::bigint))
        ORDER BY received_at DESC, id DESC LIMIT ${limit + 1}`
    })
    const page = rows.slice(0, limit)
    return {
      deliveries: page.map((d) => ({
        delivery_id: String(d.id), received_at: iso(d.received_at)!, credential: d.credential as string, status: d.status as number,
        error_code: d.error_code as string | null, origin: d.origin as string | null, ip: d.ip as string | null,
        user_agent: d.user_agent as string | null, body_bytes: d.body_bytes as number, body_sha256: d.body_sha256 as string | null,
        test: d.test as boolean, received: d.received as number, accepted: d.accepted as number, duplicate: d.duplicate as number,
        rejected: d.rejected as number, results: (d.results as Array<unknown> | null) ?? null
      })),
      next_cursor: rows.length > limit ? encode(page[page.length - 1]!.received_at as Date, String(page[page.length - 1]!.id)) : null
    }
  })

const entry = (r: Record<string, any>) => ({
  name: r.name as string, description: (r.description as string | null) ?? null, declared: r.declared as boolean,
  status: r.first_received_at === null ? "not received" as const : "received" as const, first_received_at: iso(r.first_received_at)
})

export const catalogueOf = async (sql: Sql, sourceId: string) =>
  (await sql`SELECT * FROM website_event_catalogue WHERE source_id = ${sourceId} ORDER BY name`).map(entry)

export const declareEvent = async (sql: Sql, scope: TenantScope, sourceId: string, name: string, description: string | null) => {
  const [row] = await sql`
    INSERT INTO website_event_catalogue (source_id, name, tenant_id, sandbox, description, declared)
    VALUES (${sourceId}, ${name}, ${scope.tenant_id}, ${scope.sandbox}, ${description}, true)
    ON CONFLICT (source_id, name) DO UPDATE SET declared = true, description = coalesce(EXCLUDED.description, website_event_catalogue.description)
    RETURNING *`
  return entry(row!)
}
