import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ContactSummary } from "../../schemas/contact.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"
import type { ContactFilters } from "./filters.ts"
import { isoTime } from "./profile.ts"

/**
 * One page of the scope's contacts matching every filter given, newest `updated_at` first (keyset on updated_at, id).
 * Each filter has its index (migration 025 and 001): email and phone the unique identity indexes, tag a GIN index on
 * tags, hotel_id the contact_hotels primary key probed per contact of the list itself (tenant, sandbox, updated_at DESC, id DESC).
 */
export const searchContacts = async (tx: Tx, scope: TenantScope, f: ContactFilters, page: PageRequest) => {
  if (f.matchesNothing) return { contacts: [], next_cursor: null }
  const params: Array<unknown> = [scope.tenant_id, scope.sandbox]
  const where: Array<string> = ["c.tenant_id = $1", "c.sandbox = $2"]
  const bind = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  if (f.email !== undefined) where.push(`c.email = ${bind(f.email)}`)
  if (f.phone !== undefined) where.push(`c.phone = ${bind(f.phone)}`)
  if (f.tag !== undefined) where.push(`c.tags @> ARRAY[${bind(f.tag)}::text]`)
  if (f.hotel_id !== undefined) {
    where.push(`EXISTS (SELECT 1 FROM contact_hotels ch WHERE ch.contact_id = c.id AND ch.hotel_id = ${bind(f.hotel_id)}::uuid)`)
  }
  if (f.updated_since !== undefined) where.push(`c.updated_at >= ${bind(f.updated_since)}::timestamptz`)
  if (page.after !== undefined) {
    where.push(`(c.updated_at, c.id) < (${bind(page.after.at)}::text::timestamptz, ${bind(page.after.id)}::uuid)`)
  }
  const rows = await tx.unsafe(`
    SELECT c.id AS contact_id, c.phone, c.email, c.first_name, c.last_name, c.language, c.tags,
      ${isoTime("c.created_at")} AS created_at, ${isoTime("c.updated_at")} AS updated_at, ${exactTime("c.updated_at")} AS position
    FROM contacts c WHERE ${where.join(" AND ")}
    ORDER BY c.updated_at DESC, c.id DESC LIMIT ${bind(page.limit + 1)}`, params as never, { prepare: true })
  const { shown, next_cursor } = pageOf(rows, page.limit, (c) => ({ at: c.position as string, id: c.contact_id as string }))
  return { contacts: shown.map(({ position: _p, ...c }) => c) as unknown as Array<ContactSummary>, next_cursor }
}
