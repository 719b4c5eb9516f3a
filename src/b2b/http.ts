import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { ReservationProtocol } from "../../actors/reservation/protocol.ts"
import { normaliseCode } from "../../core/normalise/b2b.ts"
import { AccountCreated, AddContactRequest, ContactLinked, CreateAccountRequest, DealCreated, DealStages } from "../../schemas/b2b.ts"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { NotFound, Unprocessable } from "../../schemas/errors.ts"
import { ActorClient } from "../../streams/ActorClient.ts"
import { answered, refusal, ok } from "../http/answers.ts"
import { requestWarnings, withWarnings } from "../http/unknownFields.ts"
import { makeSubjectCheck, suppressedWarning } from "../privacy/subjectCheck.ts"
import { listAccounts, readAccount, readAccountDetail } from "./accountReads.ts"
import { toAddContact, toCreateDeal, toUpdateDeal } from "./commands.ts"
import { listDeals, readDeal } from "./dealReads.ts"
import { B2bEdge, invalid, written } from "./edge.ts"
import { codeHotels, toCreateAccount, toUpdateAccount } from "./normalise.ts"
import { isPage, isUuid, pageOf } from "./paging.ts"

const accountNotFound = (id: string) => NotFound.of(`No B2B account with id ${JSON.stringify(id)}`, { id: ["not found"] })
const dealNotFound = (id: string) => NotFound.of(`No deal with id ${JSON.stringify(id)}`, { id: ["not found"] })
const hotelRefs = (ids: ReadonlyArray<string> | null | undefined) => (ids ?? []).map((hotel_id, i) => ({ hotel_id, field: `hotel_ids[${i}]` }))

export const B2bLive = HttpApiBuilder.group(Api, "b2b", (handlers) =>
  Effect.gen(function*() {
    const { b2b, checkHotels, read } = yield* B2bEdge
    const actors = yield* ActorClient
    const accountWarnings = requestWarnings(CreateAccountRequest)
    const contactWarnings = requestWarnings(AddContactRequest)
    const subjects = yield* makeSubjectCheck

    /** A manual decision about a reservation's account, through the reservation's own actor. */
    const attribute = Effect.fn("B2b.attribute")(function*(principal: Principal, reservationId: string, mode: "manual" | "automatic", accountId: string | null) {
      // An unknown reservation is refused here, before anything is published (the actor would refuse it too).
      const known = yield* read(principal, async (tx) =>
        (await tx`SELECT 1 FROM reservations WHERE tenant_id = ${principal.tenant_id} AND sandbox = ${principal.sandbox} AND external_id = ${reservationId}`).length > 0)
      if (!known) return yield* NotFound.of(`No reservation with reservation_id ${JSON.stringify(reservationId)}`, { reservation_id: ["not found"] })
      const attribution = yield* answered(actors.for(ReservationProtocol, principal).attribute({ external_id: reservationId, mode, account_id: accountId })).pipe(
        Effect.catchTags({
          ReservationNotFound: () =>
            Effect.fail(NotFound.of(`No reservation with reservation_id ${JSON.stringify(reservationId)}`, { reservation_id: ["not found"] })),
          AccountNotFound: () =>
            Effect.fail(Unprocessable.of("ACCOUNT_NOT_FOUND", `No B2B account with id ${JSON.stringify(accountId)}`, { account_id: ["no such account"] }))
        })
      )
      return ok({ reservation_id: reservationId, attribution })
    })

    return handlers
      .handle("createAccount", Effect.fn("B2b.createAccount")(function*({ payload }) {
        const principal = yield* CurrentPrincipal
        const checked = toCreateAccount(payload, randomUUID())
        if (!checked.ok) return yield* invalid(checked.details)
        yield* checkHotels(principal, codeHotels(checked.value.codes))
        const { account_id, depth, path } = yield* b2b(principal).createAccount(checked.value).pipe(written(false))
        return new AccountCreated(ok({ account_id, depth, path, warnings: yield* accountWarnings }))
      }))
      .handle("listAccounts", Effect.fn("B2b.listAccounts")(function*({ query }) {
        const principal = yield* CurrentPrincipal
        const page = pageOf(query, 50)
        if (!isPage(page)) return yield* invalid(page)
        if (query.code !== undefined && normaliseCode(query.code) === "") return yield* invalid({ code: ["must not be empty"] })
        return ok(yield* read(principal, (tx) => listAccounts(tx, principal, query.code, page)))
      }))
      .handle("getAccount", Effect.fn("B2b.getAccount")(function*({ params }) {
        const principal = yield* CurrentPrincipal
        const account = yield* read(principal, (tx) => readAccountDetail(tx, principal, params.id))
        if (account === undefined) return yield* accountNotFound(params.id)
        return ok(account)
      }))
      .handle("updateAccount", Effect.fn("B2b.updateAccount")(function*({ params, payload }) {
        const principal = yield* CurrentPrincipal
        // An unknown account is refused here, before anything is published (the actor would refuse it too).
        if (!isUuid(params.id) || (yield* read(principal, (tx) => readAccount(tx, principal, params.id))) === undefined) {
          return yield* accountNotFound(params.id)
        }
        const checked = toUpdateAccount(payload, params.id)
        if (!checked.ok) return yield* invalid(checked.details)
        yield* checkHotels(principal, codeHotels(checked.value.codes))
        yield* b2b(principal).updateAccount(checked.value).pipe(written(true))
        const account = yield* read(principal, (tx) => readAccount(tx, principal, params.id))
        if (account === undefined) return yield* accountNotFound(params.id)
        return ok(account)
      }))
      .handle("addContact", Effect.fn("B2b.addContact")(function*({ params, payload }) {
        const principal = yield* CurrentPrincipal
        if (!isUuid(params.id) || (yield* read(principal, (tx) => readAccount(tx, principal, params.id))) === undefined) {
          return yield* accountNotFound(params.id)
        }
        const checked = toAddContact(payload, params.id)
        if (!checked.ok) return yield* refusal(checked.status, checked.code, checked.message, checked.details)
        if (yield* subjects.isSuppressed(principal, checked.command.profile)) {
          // Accepted and left out (issue 26): no contact, no link, nothing on a stream; 200, since nothing was created.
          const { command } = checked
          return ok(withWarnings({
            contact_id: null, account_id: params.id, is_new_contact: false, role: command.role ?? null, title: command.title ?? null,
            is_primary: false, warnings: [...command.warnings, suppressedWarning("(body)")]
          }, yield* contactWarnings))
        }
        const { is_new_link, ...contact } = yield* b2b(principal).addContact(checked.command).pipe(written(true))
        const linked = withWarnings(contact, yield* contactWarnings)
        return is_new_link ? new ContactLinked(ok(linked)) : ok(linked)
      }))
      .handle("createDeal", Effect.fn("B2b.createDeal")(function*({ payload }) {
        const principal = yield* CurrentPrincipal
        yield* checkHotels(principal, hotelRefs(payload.hotel_ids))
        const { deal_id } = yield* b2b(principal).createDeal(toCreateDeal(payload, randomUUID())).pipe(written(false))
        const deal = yield* read(principal, (tx) => readDeal(tx, principal, deal_id))
        return new DealCreated(ok(deal!))
      }))
      .handle("updateDeal", Effect.fn("B2b.updateDeal")(function*({ params, payload }) {
        const principal = yield* CurrentPrincipal
        if (payload.account_id !== undefined) return yield* invalid({ account_id: ["cannot be changed: a deal belongs to the account it was created for"] })
        const stored = yield* read(principal, (tx) => readDeal(tx, principal, params.id))
        if (stored === undefined) return yield* dealNotFound(params.id)
        yield* checkHotels(principal, hotelRefs(payload.hotel_ids))
        yield* b2b(principal).updateDeal(toUpdateDeal(payload, stored.account_id, stored.deal_id)).pipe(written(true))
        return ok((yield* read(principal, (tx) => readDeal(tx, principal, params.id)))!)
      }))
      .handle("listDeals", Effect.fn("B2b.listDeals")(function*({ query }) {
        const principal = yield* CurrentPrincipal
        const page = pageOf(query, 50)
        if (!isPage(page)) return yield* invalid(page)
        if (query.account_id !== undefined && !isUuid(query.account_id)) return yield* invalid({ account_id: ["must be a UUID"] })
        if (query.stage !== undefined && !(DealStages as ReadonlyArray<string>).includes(query.stage)) {
          return yield* invalid({ stage: [`must be one of: ${DealStages.join(", ")}`] })
        }
        const filter = { ...(query.account_id ? { account_id: query.account_id } : {}), ...(query.stage ? { stage: query.stage } : {}) }
        return ok(yield* read(principal, (tx) => listDeals(tx, principal, filter, page)))
      }))
      .handle("assignAttribution", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => attribute(p, params.reservation_id, "manual", payload.account_id)))
      .handle("clearAttribution", ({ params }) =>
        Effect.flatMap(CurrentPrincipal, (p) => attribute(p, params.reservation_id, "automatic", null)))
  }))
