/**
 * Keyset cursors over (time, id), opaque to clients: pages never skip or repeat rows under concurrent inserts, and a
 * cursor the API did not issue is recognised as such. The time is the row's exact time as text (`exactTime`, to the
 * microsecond as PostgreSQL keeps it), compared as `$n::text::timestamptz`: a JavaScript Date, or a timestamptz
 * parameter as postgres.js sends it, holds milliseconds only, and a cursor at the millisecond would skip rows stored
 * within that millisecond after it.
 */
export const encodeCursor = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString("base64url")

/** The SQL of a timestamp column as a cursor's exact time text. */
export const exactTime = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

export const decodeCursor = (cursor: string): { at: string; id: string } | undefined => {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|")
  return at && id && !Number.isNaN(Date.parse(at)) && /^[0-9a-f-]{36}$/.test(id) ? { at, id } : undefined
}

/** `limit` as a query string: 1 to 100, `fallback` when absent; undefined when out of bounds. */
export const pageLimit = (raw: string | undefined, fallback = 25): number | undefined => {
  const limit = raw === undefined ? fallback : Number(raw)
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : undefined
}
