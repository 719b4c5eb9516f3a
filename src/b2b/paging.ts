import type { Issues } from "./normalise.ts"

// Keyset paging of the B2B lists: an opaque cursor carrying the sort key and id of the last row shown, so pages
// neither skip nor repeat rows while others are written.

export interface Page {
  readonly limit: number
  readonly after: { readonly key: string; readonly id: string } | undefined
}


import { isUuid } from "../../schemas/common.ts"

export { isUuid }

export const encodeCursor = (key: string, id: string): string => Buffer.from(JSON.stringify([key, id]), "utf8").toString("base64url")

/** `limit` (1-100, `fallback` when absent) and `cursor` of a list request, or the issues naming them. */
export const pageOf = (query: { readonly limit?: string; readonly cursor?: string }, fallback: number): Page | Issues => {
  const limit = query.limit === undefined ? fallback : Number(query.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { limit: ["must be an integer from 1 to 100"] }
  if (query.cursor === undefined) return { limit, after: undefined }
  try {
    const [key, id] = JSON.parse(Buffer.from(query.cursor, "base64url").toString("utf8")) as [unknown, unknown]
    if (typeof key === "string" && typeof id === "string" && isUuid(id)) return { limit, after: { key, id } }
  } catch {
    // not one of ours: answered below
  }
  return { cursor: ["must be a next_cursor this API returned"] }
}

export const isPage = (p: Page | Issues): p is Page => typeof (p as Page).limit === "number"
