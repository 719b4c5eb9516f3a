import { Schema } from "effect"
import { SafeString } from "./text.ts"

/**
 * The one success envelope and the one list shape of the API (issue 24): `{ success: true, data }`, and for every
 * list `{ success: true, data: { <plural noun>: [...], next_cursor: string | null } }`, newest first unless the route
 * says otherwise, `limit` 1-100 (default 25), `cursor` the opaque `next_cursor` of the previous page.
 */
export const ok = <S extends Schema.Top>(data: S) => Schema.Struct({ success: Schema.Literal(true), data })

/** The paging query parameters every list takes (checked by `pageRequest` in src/http/paging.ts, naming each). */
export const PageQuery = {
  limit: Schema.optionalKey(SafeString.annotate({ description: "1-100, default 25" })),
  cursor: Schema.optionalKey(SafeString.annotate({ description: "the next_cursor of the previous page, opaque" }))
}

type PageFields<N extends string, S extends Schema.Top> =
  & { readonly [K in N]: Schema.$Array<S> }
  & { readonly next_cursor: Schema.NullOr<Schema.String> }

/** The data of one page: the items under their plural noun, and the cursor of the next page (null on the last). */
export const page = <const N extends string, S extends Schema.Top>(noun: N, item: S) =>
  Schema.Struct({ [noun]: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String) } as PageFields<N, S>)

/** A list answer in the one list shape. */
export const listOf = <const N extends string, S extends Schema.Top>(noun: N, item: S) => ok(page(noun, item))
