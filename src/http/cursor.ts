/**
 * Keyset cursors over (time, id), opaque to clients: pages never skip or repeat rows under concurrent inserts, and a
 * cursor the API did not issue is recognised as such.
 */
export const encodeCursor = (at: Date, id: string) => Buffer.from(`${at.toISOString()}|${id}`).toString("base64url")

export const decodeCursor = (cursor: string): { at: string; id: string } | undefined => {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|")
  return at && id && !Number.isNaN(Date.parse(at)) && /^[0-9a-f-]{36}$/.test(id) ? { at, id } : undefined
}

/** `limit` as a query string: 1 to 100, `fallback` when absent; undefined when out of bounds. */
export const pageLimit = (raw: string | undefined, fallback = 25): number | undefined => {
  const limit = raw === undefined ? fallback : Number(raw)
  return Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : undefined
}
