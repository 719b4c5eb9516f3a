import { Clock, Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { Database, jsonb } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { AuditEntry } from "../../schemas/staff.ts"
import { exactTime } from "../http/cursor.ts"
import { inTenantOf } from "../http/inTenant.ts"
import { pageOf, type PageRequest } from "../http/paging.ts"

/**
 * Repeated looks at one contact by one staff member within this window are one `contact.viewed` entry: opening a
 * contact reads its profile, timeline and messages, and paging or coming back to it a minute later is the same look.
 * The log answers "who looked at this guest, and when" without a row per request.
 */
export const VIEW_WINDOW_MS = 10 * 60_000

export interface AuditRecord {
  readonly scope: TenantScope
  readonly actor: { readonly type: "staff" | "api_key"; readonly id: string }
  readonly action: string
  readonly contact_id: string | null
  readonly details: Record<string, unknown>
}

export interface AuditFilters {
  readonly contact_id?: string | undefined
  readonly staff_id?: string | undefined
  readonly action?: string | undefined
}

const entryOf = (r: Record<string, unknown>): AuditEntry => ({
  audit_id: r.id as string,
  at: (r.at as Date).toISOString(),
  actor: { type: r.actor_type as "staff" | "api_key", id: r.actor_id as string, email: (r.email as string | null) ?? null },
  action: r.action as string,
  contact_id: (r.contact_id as string | null) ?? null,
  details: r.details as Record<string, unknown>
})

/** The audit log: who opened which contact, and who did which action (staff sessions and API keys alike). */
export class Audit extends Context.Service<Audit, {
  readonly record: (entry: AuditRecord) => Effect.Effect<void, DatabaseFailure>
  readonly list: (scope: TenantScope, filters: AuditFilters, page: PageRequest) => Effect.Effect<{ entries: Array<AuditEntry>; next_cursor: string | null }, DatabaseFailure>
}>()("app/staff/Audit") {
  static readonly layer = Layer.effect(Audit, Effect.gen(function*() {
    const db = yield* Database
    const inTenant = inTenantOf(db)

    const record = Effect.fn("Audit.record")(function*(e: AuditRecord) {
      const now = yield* Clock.currentTimeMillis
      const at = new Date(now)
      // contact.viewed: collapsed with the same member's look at the same contact within the window (two requests at
      // the same instant may both write one; a duplicate look is harmless, a lost one is not).
      const collapse = e.action === "contact.viewed" && e.contact_id !== null
      yield* inTenant(e.scope, (tx) => tx`
        INSERT INTO audit_log (id, tenant_id, sandbox, at, actor_type, actor_id, action, contact_id, details)
        SELECT ${randomUUID()}, ${e.scope.tenant_id}, ${e.scope.sandbox}, ${at}, ${e.actor.type}, ${e.actor.id}, ${e.action},
          ${e.contact_id}, ${jsonb(tx, e.details)}
        WHERE NOT ${collapse}::boolean OR NOT EXISTS (
          SELECT 1 FROM audit_log WHERE tenant_id = ${e.scope.tenant_id} AND contact_id = ${e.contact_id} AND actor_id = ${e.actor.id}
            AND action = ${e.action} AND at > ${new Date(now - VIEW_WINDOW_MS)})`)
    })

    const list = Effect.fn("Audit.list")(function*(scope: TenantScope, f: AuditFilters, page: PageRequest) {
      const rows = yield* inTenant(scope, (tx) => tx`
        SELECT l.id, l.at, l.actor_type, l.actor_id, l.action, l.contact_id, l.details, a.email, ${tx.unsafe(exactTime("l.at"))} AS cursor_at
        FROM audit_log l LEFT JOIN staff_accounts a ON l.actor_type = 'staff' AND a.id::text = l.actor_id
        WHERE l.tenant_id = ${scope.tenant_id} AND l.sandbox = ${scope.sandbox}
          ${f.contact_id === undefined ? tx`` : tx`AND l.contact_id = ${f.contact_id}`}
          ${f.staff_id === undefined ? tx`` : tx`AND l.actor_type = 'staff' AND l.actor_id = ${f.staff_id}`}
          ${f.action === undefined ? tx`` : tx`AND l.action = ${f.action}`}
          ${page.after === undefined ? tx`` : tx`AND (l.at, l.id) < (${page.after.at}::text::timestamptz, ${page.after.id}::uuid)`}
        ORDER BY l.at DESC, l.id DESC LIMIT ${page.limit + 1}`)
      const { shown, next_cursor } = pageOf(rows, page.limit, (r) => ({ at: r.cursor_at as string, id: r.id as string }))
      return { entries: shown.map(entryOf), next_cursor }
    })

    return Audit.of({ record, list })
  }))
}
