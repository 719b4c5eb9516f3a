import type postgres from "postgres"
import type { Sql } from "../../core/db/Database.ts"
import { readAsTenant } from "../../core/db/readAsTenant.ts"
import type { CustomFieldDef } from "../../core/segment/catalog.ts"
import { reachableWhere, segmentWhere } from "../../core/segment/toSql.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"
import type { PreviewView } from "../../schemas/segmentApi.ts"

/** How long one preview may run in PostgreSQL: a definition needing more is refused, not left to load the database. */
export const PREVIEW_TIMEOUT_MS = 10_000
const SAMPLE_SIZE = 20

/** The evaluation gave up at the statement timeout (SQLSTATE 57014, query_canceled). */
export class PreviewTimedOut {
  readonly _tag = "PreviewTimedOut"
}

const isCanceled = (e: unknown) => (e as { code?: unknown } | null)?.code === "57014"

/**
 * Who a definition matches at `now`: the count, the reachable per channel for `category` (the message sender's gate),
 * and the 20 most recently created contacts. One read-only round trip under row-level security and a statement
 * timeout; the tenant and mode lead the condition so every plan starts from the account's contacts.
 */
export const previewSegment = async (
  sql: Sql,
  scope: TenantScope,
  definition: SegmentDefinition,
  ctx: { readonly now: Date; readonly customFields: ReadonlyArray<CustomFieldDef>; readonly category: "marketing" | "utility" }
): Promise<PreviewView | PreviewTimedOut> => {
  const matching = (tx: postgres.ReservedSql) =>
    tx`c.tenant_id = ${scope.tenant_id} AND c.sandbox = ${scope.sandbox} AND (${segmentWhere(tx, definition, ctx)})`
  try {
    const [, counts, sample] = await readAsTenant(sql, scope.tenant_id, (tx) => [
      tx`SELECT set_config('statement_timeout', ${String(PREVIEW_TIMEOUT_MS)}, true)`,
      tx`SELECT count(*)::int AS count,
          (count(*) FILTER (WHERE ${reachableWhere(tx, "email", ctx.category)}))::int AS email,
          (count(*) FILTER (WHERE ${reachableWhere(tx, "whatsapp", ctx.category)}))::int AS whatsapp
        FROM contacts c WHERE ${matching(tx)}`,
      tx`SELECT c.id::text AS contact_id, c.first_name, c.last_name, c.email, c.phone, c.language
        FROM contacts c WHERE ${matching(tx)} ORDER BY c.created_at DESC, c.id DESC LIMIT ${SAMPLE_SIZE}`
    ] as const)
    const row = counts[0]!
    return {
      count: row.count as number,
      reachable: { email: row.email as number, whatsapp: row.whatsapp as number },
      category: ctx.category,
      sample: sample.map((c) => ({
        contact_id: c.contact_id as string,
        first_name: c.first_name as string | null,
        last_name: c.last_name as string | null,
        email: c.email as string | null,
        phone: c.phone as string | null,
        language: c.language as string
      })),
      evaluated_at: ctx.now.toISOString()
    }
  } catch (e) {
    if (isCanceled(e)) return new PreviewTimedOut()
    throw e
  }
}
