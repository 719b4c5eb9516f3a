import type { Sql } from "../../core/db/Database.ts"
import { readAsTenant } from "../../core/db/readAsTenant.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { exactTime } from "../http/cursor.ts"
import { isoTime, jsonObject } from "./sqlJson.ts"
import { summarySql } from "./timelineSummary.ts"
import { TIMELINE_SOURCES, type TimelineSource } from "./timelineSources.ts"

/**
 * A timeline position: the last item's exact time, kind and id. Its own cursor format (prefixed `tl`), so a cursor
 * of another list is refused here and a timeline cursor is refused by the other lists.
 */
export interface TimelinePosition {
  readonly at: string
  readonly kind: string
  readonly id: string
}

const PREFIX = "tl"

export const encodeTimelineCursor = (p: TimelinePosition) => Buffer.from([PREFIX, p.at, p.kind, p.id].join("|")).toString("base64url")

export const decodeTimelineCursor = (cursor: string): TimelinePosition | undefined => {
  const parts = Buffer.from(cursor, "base64url").toString().split("|")
  const [prefix, at, kind, id] = parts
  return parts.length === 4 && prefix === PREFIX && at && kind && id && !Number.isNaN(Date.parse(at)) && /^[a-z_]{1,40}$/.test(kind) &&
      /^[0-9a-f:-]{1,80}$/.test(id)
    ? { at, kind, id }
    : undefined
}

// One order everywhere, inner and outer: time, then kind and id as plain bytes (COLLATE "C"), all descending.
const ORDER = `at DESC, kind COLLATE "C" DESC, id COLLATE "C" DESC`
/** The same order over the merged sources (`u`). */
const MERGED_ORDER = ORDER.replace(/(^|, )/g, "$1u.")

/** One source's newest `limit` items after the position: its index walks from the contact's newest row backwards. */
const sourceSelect = (s: TimelineSource, after: boolean) => {
  const position = after ? ` AND ${s.at} <= $5::text::timestamptz` : ""
  const inner = `SELECT ${s.at} AS at, ${s.kind} AS kind, ${s.id} AS id, ${s.data} AS data FROM ${s.from} WHERE ${s.where}${position}`
  const keyset = after ? ` WHERE (x.at, x.kind COLLATE "C", x.id COLLATE "C") < ($5::text::timestamptz, $6, $7)` : ""
  return `(SELECT * FROM (${inner}) x${keyset} ORDER BY ${ORDER} LIMIT $4)`
}

const ITEM = jsonObject({ at: isoTime("p.at"), kind: "p.kind", id: "p.id", summary: summarySql("p.kind", "p.data"), data: "p.data" })
/** The last item shown (the `$4 - 1`th: `$4` is the page size plus one), whose position the next cursor holds. */
const lastShown = (column: string) => `min(${column}) FILTER (WHERE p.n = $4 - 1)`

/**
 * The statement of one page: each source limited to the page size plus one (`$4`), merged, ordered, limited again,
 * and written by PostgreSQL as the page's JSON text (ADR 0038) with the last shown item's position, whether more
 * follow, and whether the contact is the scope's at all (an aggregate gives its one row even over no items). Two
 * texts only (first page, later pages), prepared: planning this many branches costs more than running them.
 */
const statement = (after: boolean) => `
  SELECT coalesce(json_agg(${ITEM} ORDER BY p.n) FILTER (WHERE p.n < $4), '[]')::text AS items, count(*) = $4 AS more,
    ${lastShown(exactTime("p.at"))} AS position, ${lastShown("p.kind")} AS kind, ${lastShown("p.id")} AS id,
    EXISTS (SELECT 1 FROM contacts c WHERE c.id = $1 AND c.tenant_id = $2 AND c.sandbox = $3) AS found
  FROM (
    SELECT row_number() OVER (ORDER BY ${MERGED_ORDER}) AS n, u.*
    FROM (${TIMELINE_SOURCES.map((s) => sourceSelect(s, after)).join("\n UNION ALL ")}) u
    ORDER BY ${MERGED_ORDER} LIMIT $4) p`

export const TIMELINE_STATEMENTS = { first: statement(false), after: statement(true) } as const

type Page = { items: string; more: boolean; position: string | null; kind: string | null; id: string | null; found: boolean }

/**
 * One page of the contact's timeline, newest first, as the answer's JSON text (`{"success":true,"data":{"items":[...],
 * "next_cursor":...}}`, schemas/timeline.ts), or undefined when the contact is not the scope's: one round trip, one
 * index scan per source (each stops after limit + 1 rows), and one per message shown for its status chain.
 */
export const readTimelineAnswer = async (
  sql: Sql, scope: TenantScope, contactId: string, page: { readonly limit: number; readonly after: TimelinePosition | undefined }
): Promise<string | undefined> => {
  const a = page.after
  const params = [contactId, scope.tenant_id, scope.sandbox, page.limit + 1, ...(a === undefined ? [] : [a.at, a.kind, a.id])]
  const text = a === undefined ? TIMELINE_STATEMENTS.first : TIMELINE_STATEMENTS.after
  const [[row]] = await readAsTenant(sql, scope.tenant_id, (tx) => [tx.unsafe(text, params as never, { prepare: true })])
  const p = row as unknown as Page
  // The page is dropped when the contact is not the scope's.
  if (!p.found) return undefined
  const next = p.more && p.position !== null && p.kind !== null && p.id !== null
    ? encodeTimelineCursor({ at: p.position, kind: p.kind, id: p.id })
    : null
  return `{"success":true,"data":{"items":${p.items},"next_cursor":${JSON.stringify(next)}}}`
}
