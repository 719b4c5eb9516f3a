import type { Sql } from "../../core/db/Database.ts"
import { readAsTenant } from "../../core/db/readAsTenant.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { TimelineItem } from "../../schemas/timeline.ts"
import { exactTime } from "../http/cursor.ts"
import { isoTime } from "./profile.ts"
import { errorMeaning } from "../../core/message/errorMeanings.ts"
import { summaryOf } from "./timelineSummary.ts"
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

/** One source's newest `limit` items after the position: its index walks from the contact's newest row backwards. */
const sourceSelect = (s: TimelineSource, after: boolean) => {
  const position = after ? ` AND ${s.at} <= $5::text::timestamptz` : ""
  const inner = `SELECT ${s.at} AS at, ${s.kind} AS kind, ${s.id} AS id, ${s.data} AS data FROM ${s.from} WHERE ${s.where}${position}`
  const keyset = after ? ` WHERE (x.at, x.kind COLLATE "C", x.id COLLATE "C") < ($5::text::timestamptz, $6, $7)` : ""
  return `(SELECT * FROM (${inner}) x${keyset} ORDER BY ${ORDER} LIMIT $4)`
}

/**
 * The statement of one page: each source limited to the page size plus one (`$4`), merged, ordered, limited again.
 * Two texts only (first page, later pages), prepared: planning this many branches costs more than running them.
 */
const statement = (after: boolean) => `
  SELECT ${isoTime("u.at")} AS at_iso, ${exactTime("u.at")} AS position, u.kind, u.id, u.data
  FROM (${TIMELINE_SOURCES.map((s) => sourceSelect(s, after)).join("\n UNION ALL ")}) u
  ORDER BY ${ORDER.replace(/(^|, )/g, "$1u.")} LIMIT $4`

export const TIMELINE_STATEMENTS = { first: statement(false), after: statement(true) } as const

type Row = { at_iso: string; position: string; kind: TimelineItem["kind"]; id: string; data: Record<string, unknown> }

/** A message item's provider error in a sentence (core/message/errorMeanings.ts); other kinds as they are. */
const withMeaning = (r: Row) => {
  if (r.kind !== "message") return r.data
  const d = r.data as { channel: string; error_code: string | null; error_message: string | null }
  return { ...r.data, error_meaning: errorMeaning(d.channel, d.error_code, d.error_message) }
}

/**
 * One page of the contact's timeline, newest first, or undefined when the contact is not the scope's: one round trip,
 * one index scan per source (each stops after limit + 1 rows), and one per message shown for its status chain.
 */
export const readTimeline = async (
  sql: Sql, scope: TenantScope, contactId: string, page: { readonly limit: number; readonly after: TimelinePosition | undefined }
): Promise<{ items: Array<TimelineItem>; next_cursor: string | null } | undefined> => {
  const a = page.after
  const params = [contactId, scope.tenant_id, scope.sandbox, page.limit + 1, ...(a === undefined ? [] : [a.at, a.kind, a.id])]
  const text = a === undefined ? TIMELINE_STATEMENTS.first : TIMELINE_STATEMENTS.after
  // The page is dropped when the contact is not the scope's.
  const [[contact], found] = await readAsTenant(sql, scope.tenant_id, (tx) => [
    tx`SELECT 1 FROM contacts WHERE id = ${contactId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`,
    tx.unsafe(text, params as never, { prepare: true })
  ])
  if (contact === undefined) return undefined
  const rows = found as unknown as Array<Row>
  const shown = rows.slice(0, page.limit)
  const last = shown[shown.length - 1]
  return {
    items: shown.map((r) => ({ at: r.at_iso, kind: r.kind, id: r.id, summary: summaryOf(r.kind, r.data), data: withMeaning(r) }) as TimelineItem),
    next_cursor: rows.length > page.limit && last !== undefined ? encodeTimelineCursor({ at: last.position, kind: last.kind, id: last.id }) : null
  }
}
