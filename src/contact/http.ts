import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Database, type Sql, type Tx, withTenant } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { Api } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { NotFound } from "../../schemas/errors.ts"
import { jsonAnswer } from "../http/answers.ts"
import { callerScope } from "../http/handlerContext.ts"
import { pageRequest, refused } from "../http/paging.ts"
import { contactFilters } from "./filters.ts"
import { readContactProfileAnswer } from "./profile.ts"
import { searchContacts } from "./search.ts"
import { decodeTimelineCursor, readTimelineAnswer } from "./timeline.ts"

const contactNotFound = (id: string) => NotFound.of(`No contact with id ${JSON.stringify(id)}`, { contact_id: ["not found"] })

const contactId = (id: string) => isUuid(id) ? Effect.succeed(id.toLowerCase()) : Effect.fail(refused("contact_id", "must be a UUID"))

export const ContactsLive = HttpApiBuilder.group(Api, "contacts", (handlers) =>
  Effect.gen(function*() {
    const db = yield* Database

    /** A read of the caller's scope on the pool: the reader confines itself to the tenant (`readAsTenant`). */
    const readScoped = <A>(f: (sql: Sql, s: TenantScope) => Promise<A>) => Effect.flatMap(callerScope, (s) => db.query((sql) => f(sql, s)))
    /** A read confined to the caller's tenant (row-level security) and mode, in a transaction. */
    const read = <A>(f: (tx: Tx, s: TenantScope) => Promise<A>) => readScoped((sql, s) => withTenant(sql, s.tenant_id, (tx) => f(tx, s)))

    return handlers
      .handle("get", Effect.fn("Contacts.get")(function*({ params }) {
        const id = yield* contactId(params.contact_id)
        const answer = yield* readScoped((sql, s) => readContactProfileAnswer(sql, s, id))
        if (answer === undefined) return yield* contactNotFound(params.contact_id)
        return jsonAnswer(answer)
      }))
      .handle("list", Effect.fn("Contacts.list")(function*({ query }) {
        const filters = yield* contactFilters(query)
        const page = yield* pageRequest(query)
        return { success: true as const, data: yield* read((tx, s) => searchContacts(tx, s, filters, page)) }
      }))
      .handle("timeline", Effect.fn("Contacts.timeline")(function*({ params, query }) {
        const id = yield* contactId(params.contact_id)
        const { limit } = yield* pageRequest({ limit: query.limit })
        const after = query.cursor === undefined ? undefined : decodeTimelineCursor(query.cursor)
        if (query.cursor !== undefined && after === undefined) return yield* refused("cursor", "must be a next_cursor this timeline returned")
        const answer = yield* readScoped((sql, s) => readTimelineAnswer(sql, s, id, { limit, after }))
        if (answer === undefined) return yield* contactNotFound(params.contact_id)
        return jsonAnswer(answer)
      }))
  }))
