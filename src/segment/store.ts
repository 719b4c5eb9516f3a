import { jsonb, type Tx } from "../../core/db/Database.ts"
import { customFieldDefs } from "../../core/segment/customFields.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { isUuid } from "../../schemas/common.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"
import type { SegmentView } from "../../schemas/segmentApi.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"

// Segments as the API writes and reads them, in a transaction confined to the caller's tenant (row-level security)
// and filtered by its mode.

interface SegmentRecord {
  id: string
  name: string
  description: string | null
  definition: SegmentDefinition
  version: number
  created_at: Date
  updated_at: Date
  cursor_at: string
}

const COLUMNS = `id, name, description, definition, version, created_at, updated_at, ${exactTime("created_at")} AS cursor_at`

const view = (r: SegmentRecord): SegmentView => ({
  segment_id: r.id,
  name: r.name,
  description: r.description,
  definition: r.definition,
  version: r.version,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString()
})

export interface SegmentFields {
  readonly name: string
  readonly description: string | null
  readonly definition: SegmentDefinition
}

export const insertSegment = async (tx: Tx, scope: TenantScope, id: string, s: SegmentFields): Promise<SegmentView> => {
  const [row] = await tx<Array<SegmentRecord>>`
    INSERT INTO segments (id, tenant_id, sandbox, name, description, definition)
    VALUES (${id}, ${scope.tenant_id}, ${scope.sandbox}, ${s.name}, ${s.description}, ${jsonb(tx, s.definition)})
    RETURNING ${tx.unsafe(COLUMNS)}`
  return view(row!)
}

/** The next version: every field as given, the version counted on. */
export const saveSegment = async (tx: Tx, scope: TenantScope, id: string, s: SegmentFields): Promise<SegmentView> => {
  const [row] = await tx<Array<SegmentRecord>>`
    UPDATE segments SET name = ${s.name}, description = ${s.description}, definition = ${jsonb(tx, s.definition)},
      version = version + 1, updated_at = now()
    WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
    RETURNING ${tx.unsafe(COLUMNS)}`
  return view(row!)
}

/** One segment of the caller's tenant and mode; `lock` holds its row until commit (two edits apply one after the other). */
export const readSegment = async (tx: Tx, scope: TenantScope, id: string, lock = false): Promise<SegmentView | undefined> => {
  if (!isUuid(id)) return undefined
  const [row] = await tx.unsafe<Array<SegmentRecord>>(
    `SELECT ${COLUMNS} FROM segments WHERE id = $1 AND tenant_id = $2 AND sandbox = $3${lock ? " FOR UPDATE" : ""}`,
    [id, scope.tenant_id, scope.sandbox])
  return row === undefined ? undefined : view(row)
}

/** The segments, newest first, keyset-paginated on (created_at, id). */
export const listSegments = async (tx: Tx, scope: TenantScope, o: PageRequest) => {
  const rows = await tx.unsafe<Array<SegmentRecord>>(
    `SELECT ${COLUMNS} FROM segments
     WHERE tenant_id = $1 AND sandbox = $2 AND ($3::text IS NULL OR (created_at, id) < ($3::text::timestamptz, $4::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [scope.tenant_id, scope.sandbox, o.after?.at ?? null, o.after?.id ?? null, o.limit + 1])
  const { shown, next_cursor } = pageOf(rows, o.limit, (r) => ({ at: r.cursor_at, id: r.id }))
  return { segments: shown.map(view), next_cursor }
}

/** The account's custom field definitions in the caller's mode. */
export const customFieldsOf = (tx: Tx, scope: TenantScope) => customFieldDefs(tx, scope.tenant_id, scope.sandbox)
