import { Effect } from "effect"
import { ValidationFailed } from "../../schemas/errors.ts"
import { decodeCursor, encodeCursor } from "./cursor.ts"

/** A list request's page: how many items, and the (time, id) of the last item already shown. */
export interface PageRequest {
  readonly limit: number
  readonly after: { readonly at: string; readonly id: string } | undefined
}

/** 400 VALIDATION_ERROR naming one query parameter: the refusal of every list's bad paging or filter value. */
export const refused = (parameter: string, message: string) =>
  ValidationFailed.of(`Invalid request: ${parameter} ${message}`, { [parameter]: [message] })

/**
 * `limit` (1-100, default 25) and `cursor` (a `next_cursor` this API issued) of any list in the one list shape
 * (schemas/list.ts), or 400 naming the parameter. The cursor is the keyset (time, id) of `src/http/cursor.ts`.
 */
export const pageRequest = Effect.fn("Paging.pageRequest")(function*(
  query: { readonly limit?: string | undefined; readonly cursor?: string | undefined },
  fallback = 25
) {
  const limit = query.limit === undefined ? fallback : Number(query.limit)
  if (!/^\d{1,3}$/.test(query.limit ?? "25") || !Number.isInteger(limit) || limit < 1 || limit > 100) {
    return yield* refused("limit", "must be an integer from 1 to 100")
  }
  if (query.cursor === undefined) return { limit, after: undefined } satisfies PageRequest
  const after = decodeCursor(query.cursor)
  if (after === undefined) return yield* refused("cursor", "must be a next_cursor this API returned")
  return { limit, after } satisfies PageRequest
})

/**
 * The page of a keyset query that fetched `limit + 1` rows: the first `limit`, and the cursor of the last of them when
 * there was one more (null on the last page).
 */
export const pageOf = <R>(rows: ReadonlyArray<R>, limit: number, keyOf: (row: R) => { readonly at: string; readonly id: string }) => {
  const shown = rows.slice(0, limit)
  const last = shown[shown.length - 1]
  const key = rows.length > limit && last !== undefined ? keyOf(last) : undefined
  return { shown, next_cursor: key === undefined ? null : encodeCursor(key.at, key.id) }
}
