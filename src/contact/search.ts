import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ContactSummary } from "../../schemas/contact.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"
import type { ContactFilters } from "./filters.ts"
import { isoTime } from "./sqlJson.ts"

/**
 * One page of the scope's contacts matching every filter given, newest `updated_at` first (keyset on updated_at, id).
 * Each filter has its index (migration 025 and 001): email and phone the unique identity indexes, tag a GIN index on
 * tags, hotel_id the contact_hotels primary key probed per contact of the list itself (tenant, sandbox, updated_at DESC, id DESC),
 * name the GIN index of the name's words (migration 041: every word given is the start of a word of the name).
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
  if (f.name !== undefined) {
    where.push(`contact_name_words(c.first_name, c.last_name) @@ to_tsquery('simple', immutable_unaccent(${bind(f.name)}))`)
  }
  if (f.updated_since !== undefined) where.push(`c.updated_at >= ${bind(f.updated_since)}::timestamptz`)
  if (page.after !== undefined) {
    where.push(`(c.updated_at, c.id) < (${bind(page.after.at)}::text::timestamptz, ${bind(page.after.id)}::uuid)`)
  }
  const columns = `c.id AS contact_id, c.phone, c.email, c.first_name, c.last_name, c.language, c.tags,
      ${isoTime("c.created_at")} AS created_at, ${isoTime("c.updated_at")} AS updated_at, ${exactTime("c.updated_at")} AS position`
  const order = `ORDER BY c.updated_at DESC, c.id DESC LIMIT ${bind(page.limit + 1)}`
  const run = (query: string) => tx.unsafe(query, params as never, { prepare: true })
  const rows = f.name === undefined
    ? await run(`SELECT ${columns} FROM contacts c WHERE ${where.join(" AND ")} ${order}`)
    : await byName(tx, run, columns, where, order)
  const { shown, next_cursor } = pageOf(rows, page.limit, (c) => ({ at: c.position as string, id: c.contact_id as string }))
  return { contacts: shown.map(({ position: _p, ...c }) => c) as unknown as Array<ContactSummary>, next_cursor }
}

/** Past this many matches a name is common enough that walking the newest contacts finds a page sooner. */
const RARE_NAME = 10_000

/**
 * A name search, planned by how many contacts the name matches, which the planner cannot guess for word prefixes (it
 * takes a rare surname for a common one and walks a million contacts; measured in docs/guide/reading-data.md).
 * First the name's GIN index alone, capped: a name matching at most RARE_NAME contacts is answered from them, sorted.
 * A commoner one walks the contacts newest first and keeps the matching ones, which fills a page within a few hundred.
 */
const byName = async (
  tx: Tx,
  run: (query: string) => Promise<ReadonlyArray<Record<string, unknown>>>,
  columns: string,
  where: ReadonlyArray<string>,
  order: string
) => {
  await tx.unsafe("SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)")
  const rare = await run(`
    WITH matched AS MATERIALIZED (SELECT c.* FROM contacts c WHERE ${where.join(" AND ")} LIMIT ${RARE_NAME + 1})
    SELECT ${columns}, (SELECT count(*) FROM matched) AS matched FROM matched c ${order}`)
  if (rare.length === 0 || Number(rare[0]!["matched"]) <= RARE_NAME) return rare.map(({ matched: _m, ...c }) => c)
  await tx.unsafe("SELECT set_config('enable_indexscan', 'on', true), set_config('enable_bitmapscan', 'off', true)")
  return run(`SELECT ${columns} FROM contacts c WHERE ${where.join(" AND ")} ${order}`)
}
