import { Context, DateTime, Effect, Layer } from "effect"
import { isUuid } from "../../schemas/common.ts"
import { inTenantOf, Refused } from "../http/inTenant.ts"
import { randomUUID } from "node:crypto"
import { hotelOf } from "../../core/broadcast/reads.ts"
import { type BroadcastAction, BroadcastProtocol } from "../../actors/broadcast/protocol.ts"
import { MessageProtocol } from "../../actors/message/protocol.ts"
import { renderFor } from "../../core/broadcast/render.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { DEFAULT_MARKETING_CAP_HOURS, RecipientStatuses } from "../../schemas/broadcast.ts"
import type { BroadcastView, CreateBroadcastRequest, PatchBroadcastRequest, RecipientView } from "../../schemas/broadcastApi.ts"
import { Conflict, type InternalError, NotFound, PreconditionFailed, type Unavailable, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered } from "../http/answers.ts"
import { matches } from "../http/etag.ts"
import type { PageRequest } from "../http/paging.ts"
import { broadcastIssues, type Issue } from "./checks.ts"
import { insertBroadcast, listBroadcasts, listRecipients, readBroadcast, readCapHours, saveDraft, writeCapHours } from "./store.ts"

export type BroadcastRefusal = NotFound | Conflict | PreconditionFailed | Unprocessable | ValidationFailed

export const broadcastNotFound = (id: string) => NotFound.of(`No broadcast with id ${JSON.stringify(id)}`, { id: ["not found"] })

const invalid = (issues: ReadonlyArray<Issue>) => {
  const details: Record<string, Array<string>> = {}
  for (const i of issues) (details[i.path] ??= []).push(i.message)
  const first = issues[0]!
  return Unprocessable.of("VALIDATION_ERROR", issues.length === 1
    ? `Invalid broadcast: ${first.path} ${first.message}`
    : `Invalid broadcast: ${issues.length} problems, the first ${first.path} ${first.message}`, details)
}

/** The request a stored draft answers to (the view without what the platform adds). */
const requestOf = (v: BroadcastView): CreateBroadcastRequest => ({
  name: v.name, channel: v.channel, category: v.category, audience: v.audience, content: v.content,
  ...(v.hotel_id === null ? {} : { hotel_id: v.hotel_id }),
  ...(v.schedule === null ? {} : { schedule: v.schedule }),
  ...(v.rate_limit_per_minute === null ? {} : { rate_limit_per_minute: v.rate_limit_per_minute }),
  ...(v.quiet_hours === null ? {} : { quiet_hours: v.quiet_hours }),
  ...(v.send_deadline === null ? {} : { send_deadline: v.send_deadline })
})

type Result<A, E extends BroadcastRefusal = BroadcastRefusal> = Effect.Effect<A, E | DatabaseFailure>
type Page<K extends string, A> = { readonly [k in K]: ReadonlyArray<A> } & { readonly next_cursor: string | null }

/**
 * Broadcasts of one account and mode: drafts written here (checked against the account, one transaction under
 * row-level security); every action past a draft asks the broadcast actor, which owns the lifecycle.
 */
export class Broadcasts extends Context.Service<Broadcasts, {
  readonly create: (scope: TenantScope, r: CreateBroadcastRequest) => Result<BroadcastView, Unprocessable>
  readonly list: (scope: TenantScope, page: PageRequest) => Result<Page<"broadcasts", BroadcastView>, never>
  readonly get: (scope: TenantScope, id: string) => Result<BroadcastView, NotFound>
  readonly update: (scope: TenantScope, id: string, patch: PatchBroadcastRequest, ifMatch: string | undefined) => Result<BroadcastView>
  readonly act: (scope: TenantScope, id: string, action: BroadcastAction) => Effect.Effect<BroadcastView, BroadcastRefusal | Unavailable | InternalError | DatabaseFailure>
  readonly test: (scope: TenantScope, id: string, to: string) => Effect.Effect<{ message_id: string | null; status: string; skip_reason: string | null }, BroadcastRefusal | Unavailable | InternalError | DatabaseFailure>
  readonly recipients: (scope: TenantScope, id: string, status: string | undefined, page: PageRequest) => Result<Page<"recipients", RecipientView>, NotFound | ValidationFailed>
  readonly settings: (scope: TenantScope, capHours?: number | null) => Result<{ marketing_frequency_cap_hours: number; is_default: boolean }, never>
}>()("app/broadcast/Broadcasts") {
  static readonly layer = Layer.effect(Broadcasts, Effect.gen(function*() {
    const db = yield* Database
    const actors = yield* ActorClient
    const { namespace } = yield* AppConfig

    const inTenant = inTenantOf(db)

    const get = (scope: TenantScope, id: string) =>
      inTenant<BroadcastView, NotFound>(scope, async (tx) => (await readBroadcast(tx, scope, id)) ?? new Refused(broadcastNotFound(id)))

    return Broadcasts.of({
      create: Effect.fn("Broadcasts.create")(function*(scope, r) {
        const id = randomUUID()
        const saved = yield* inTenant<BroadcastView, Unprocessable>(scope, async (tx) => {
          const issues = await broadcastIssues(tx, scope, r)
          if (issues.length > 0) return new Refused(invalid(issues))
          await insertBroadcast(tx, scope, namespace, id, r)
          return (await readBroadcast(tx, scope, id))!
        })
        yield* Effect.logInfo("broadcast created").pipe(Effect.annotateLogs({ tenant_id: scope.tenant_id, broadcast_id: id }))
        return saved
      }),
      list: (scope, page) => inTenant(scope, (tx) => listBroadcasts(tx, scope, page)),
      get,
      update: Effect.fn("Broadcasts.update")(function*(scope, id, patch, ifMatch) {
        return yield* inTenant<BroadcastView, BroadcastRefusal>(scope, async (tx) => {
          const current = await readBroadcast(tx, scope, id, true)
          if (current === undefined) return new Refused(broadcastNotFound(id))
          if (current.status !== "draft") {
            return new Refused(Conflict.of("BROADCAST_STATUS", `Broadcast ${id} is ${current.status}: only a draft changes`, { status: [current.status] }))
          }
          if (ifMatch !== undefined && !matches(ifMatch, current.version)) {
            return new Refused(PreconditionFailed.of(`Broadcast ${id} is at version ${current.version}, not the one If-Match names`, {
              "if-match": [`the current version's ETag is "v${current.version}"`]
            }))
          }
          const merged = { ...requestOf(current), ...patch } as CreateBroadcastRequest
          const issues = await broadcastIssues(tx, scope, merged)
          if (issues.length > 0) return new Refused(invalid(issues))
          await saveDraft(tx, id, merged)
          return (await readBroadcast(tx, scope, id))!
        })
      }),
      act: Effect.fn("Broadcasts.act")(function*(scope, id, action) {
        // The actor answers an unknown broadcast (404, confined to the tenant); only an id that is no UUID stops here.
        if (!isUuid(id)) return yield* broadcastNotFound(id)
        yield* answered(actors.for(BroadcastProtocol, scope).act({ broadcast_id: id, action })).pipe(
          Effect.catchTag("BroadcastRefused", (e) => Effect.fail(
            e.status === 404 ? broadcastNotFound(id)
            : e.status === 409 ? Conflict.of(e.code, e.message, { [e.field]: [e.message] })
            : Unprocessable.of(e.code, e.message, { [e.field]: [e.message] })
          )))
        return yield* get(scope, id)
      }),
      test: Effect.fn("Broadcasts.test")(function*(scope, id, to) {
        const found = yield* inTenant<{ b: BroadcastView; facts: Parameters<typeof renderFor>[2] | undefined }, NotFound>(scope, async (tx) => {
          const b = await readBroadcast(tx, scope, id)
          if (b === undefined) return new Refused(broadcastNotFound(id))
          const [contact] = await tx<Array<Parameters<typeof renderFor>[2]["contact"]>>`
            SELECT first_name, last_name, email, phone, language FROM contacts WHERE id = ${to} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
          return { b, facts: contact === undefined ? undefined : { contact, hotel: await hotelOf(tx, b.hotel_id) } }
        })
        if (found.facts === undefined) return yield* Unprocessable.of("CONTACT_NOT_FOUND", `No contact with id ${JSON.stringify(to)}`, { to: ["no such contact"] })
        const { b } = found
        const rendered = renderFor(b.broadcast_id, b.content, found.facts, yield* DateTime.nowAsDate)
        if ("skip" in rendered) return { message_id: null, status: "skipped", skip_reason: rendered.skip }
        // Not a recipient: a send of its own (a new message id), through the same gates, outside the broadcast's counts.
        const outcome = yield* answered(actors.for(MessageProtocol, scope).send({
          message_id: randomUUID(), contact_id: to, channel: b.channel, ...(b.channel === "email" ? { category: b.category } : {}), origin: "api",
          ...(b.hotel_id === null ? {} : { hotel_id: b.hotel_id }),
          ...(rendered.channel === "email"
            ? { subject: rendered.subject, ...(rendered.html === undefined ? {} : { html: rendered.html }), ...(rendered.text === undefined ? {} : { text: rendered.text }) }
            : { template: rendered.template, ...(b.category === "marketing" ? { gate_as: "marketing" as const } : {}) })
        })).pipe(Effect.catchTag("SendRefused", (e) => Effect.fail(e.status === 404
          ? Unprocessable.of("CONTACT_NOT_FOUND", e.message, { to: [e.message] })
          : Unprocessable.of(e.code, e.message, { [e.field]: [e.message] }))))
        return { message_id: outcome.message_id, status: outcome.status, skip_reason: outcome.skip_reason }
      }),
      settings: Effect.fn("Broadcasts.settings")(function*(scope, capHours) {
        // The cap is the account's, for both modes (tenant_settings has no mode), like the reservation date-event times.
        const set = yield* inTenant(scope, async (tx) => {
          if (capHours !== undefined) await writeCapHours(tx, scope.tenant_id, capHours)
          return readCapHours(tx, scope.tenant_id)
        })
        return { marketing_frequency_cap_hours: set ?? DEFAULT_MARKETING_CAP_HOURS, is_default: set === null }
      }),
      recipients: Effect.fn("Broadcasts.recipients")(function*(scope, id, status, page) {
        if (status !== undefined && !(RecipientStatuses as ReadonlyArray<string>).includes(status)) {
          return yield* ValidationFailed.of(`Invalid request: status must be one of: ${RecipientStatuses.join(", ")}`, { status: [`must be one of: ${RecipientStatuses.join(", ")}`] })
        }
        return yield* inTenant<Page<"recipients", RecipientView>, NotFound>(scope, async (tx) => {
          const b = await readBroadcast(tx, scope, id)
          return b === undefined ? new Refused(broadcastNotFound(id)) : listRecipients(tx, { id: b.broadcast_id, channel: b.channel }, status, page)
        })
      })
    })
  }))
}
