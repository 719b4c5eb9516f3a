import { Effect, Result } from "effect"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import * as Actor from "../runtime/Actor.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import * as Repo from "./accountRepository.ts"
import { accountOrRefuse, checkCodesFree, createAccount, refuse, updateAccount } from "./accounts.ts"
import * as Deals from "./dealRepository.ts"
import { codesToRegister, type DealRow, newDeal, patchDeal } from "./deals.ts"
import { type AddContact, type B2bCommand, B2bProtocol, type B2bRefused, type B2bResult, type CreateDeal, type UpdateDeal } from "./protocol.ts"

type Item = Actor.WaveItem<B2bCommand>
type Answer = Actor.WaveResult<B2bResult, B2bRefused>

/** A person at the account: resolved by the shared identity rules (the same person is the same contact), then linked. */
const addContact = Effect.fn("B2bActor.addContact")(function*(cmd: AddContact, envelopeId: string) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  yield* accountOrRefuse(cmd.account_id, "id")
  const [resolved] = yield* Actor.query((tx) => resolveContacts(tx, scope, [cmd.profile], { source: "b2b:account", envelopeId }))
  const person = resolved! // the ingress sends only people with a phone or an email
  const [link, summaries] = yield* Actor.query((tx) => Promise.all([
    Deals.linkContact(tx, scope, { account_id: cmd.account_id, contact_id: person.contact_id, role: cmd.role, title: cmd.title, is_primary: cmd.is_primary }),
    loadContactSummaries(tx, [person.contact_id]),
    cmd.desk_email === undefined ? undefined : Deals.addDeskEmail(tx, cmd.account_id, cmd.desk_email)
  ]))
  const outbox = contactChangeCommands(subject, { ...scope, occurred_at: new Date().toISOString() }, [person], summaries, null)
  const result: B2bResult = {
    op: "contact", account_id: cmd.account_id, contact_id: person.contact_id, is_new_contact: person.is_new,
    is_new_link: link.inserted, role: link.role, title: link.title, is_primary: link.is_primary, warnings: cmd.warnings
  }
  return { result, outbox }
})

const contactOrRefuse = Effect.fn("B2bActor.contact")(function*(contactId: string | null | undefined) {
  if (contactId == null) return
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  if (!(yield* Actor.query((tx) => Deals.contactExists(tx, scope, contactId)))) {
    return yield* refuse("CONTACT_NOT_FOUND", `No contact with id ${JSON.stringify(contactId)}`, { contact_id: ["no such contact"] })
  }
})

/** Stores the deal; one that becomes a won corporate-rate deal registers its rate codes on the account. */
const saveDeal = Effect.fn("B2bActor.saveDeal")(function*(deal: DealRow, becameWon: boolean) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const codes = becameWon ? codesToRegister(deal) : []
  yield* checkCodesFree(scope, deal.account_id, codes)
  yield* Actor.query(async (tx) => {
    await Deals.saveDeal(tx, scope, deal)
    await Repo.insertCodes(tx, scope, deal.account_id, codes, deal.id)
  })
  const result: B2bResult = {
    op: "deal", deal_id: deal.id, account_id: deal.account_id, stage: deal.stage, registered_codes: [...new Set(codes.map((c) => c.display))]
  }
  return result
})

const createDeal = Effect.fn("B2bActor.createDeal")(function*(cmd: CreateDeal) {
  yield* accountOrRefuse(cmd.account_id, "account_id")
  yield* contactOrRefuse(cmd.deal.contact_id)
  return yield* saveDeal(newDeal(cmd.deal_id, cmd.account_id, cmd.deal, new Date().toISOString()), cmd.deal.stage === "won")
})

const updateDeal = Effect.fn("B2bActor.updateDeal")(function*(cmd: UpdateDeal) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const existing = yield* Actor.query((tx) => Deals.findDealForUpdate(tx, scope, cmd.account_id, cmd.deal_id))
  if (existing === undefined) return yield* refuse("DEAL_NOT_FOUND", `No deal with id ${JSON.stringify(cmd.deal_id)}`, { id: ["not found"] })
  yield* contactOrRefuse(cmd.set.contact_id)
  const change = patchDeal(existing, cmd.set, new Date().toISOString())
  if (!change.ok) return yield* refuse(change.code, change.message, { [change.field]: [change.message] })
  return yield* saveDeal(change.deal, change.becameWon)
})

type Applied = Effect.Effect<{ result: B2bResult; outbox: ReadonlyArray<Actor.OutboxMessage> }, B2bRefused | DatabaseFailure, Actor.GroupTransaction>
const alone = (effect: Effect.Effect<B2bResult, B2bRefused | DatabaseFailure, Actor.GroupTransaction>): Applied =>
  Effect.map(effect, (result) => ({ result, outbox: [] }))

const dispatch = (cmd: B2bCommand, envelopeId: string): Applied => {
  switch (cmd.op) {
    case "create_account": return alone(createAccount(cmd))
    case "update_account": return alone(updateAccount(cmd))
    case "add_contact": return addContact(cmd, envelopeId)
    case "create_deal": return alone(createDeal(cmd))
    case "update_deal": return alone(updateDeal(cmd))
  }
}

/** One write: its answer, or its refusal (nothing of it stored: every check runs before the first write). */
const applyOne = (item: Item): Effect.Effect<Answer, DatabaseFailure, Actor.GroupTransaction> =>
  dispatch(item.payload, item.envelopeId).pipe(
    Effect.map(({ result, outbox }): Answer => ({ result: Result.succeed(result), outbox })),
    Effect.catchTag("B2bRefused", (e) => Effect.succeed<Answer>({ result: Result.fail(e), outbox: [] }))
  )

/**
 * Applies a wave of B2B writes one after the other under the tenant's B2B lock: the tree and code uniqueness span
 * accounts, so each write must see the ones before it, in this transaction and in any other worker's. B2B writes are
 * a sales team's pace, not a PMS feed's: serialising them per tenant costs nothing that matters.
 */
const apply = Effect.fn("B2bActor.apply")(function*(items: ReadonlyArray<Item>) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  yield* Actor.query((tx) => Repo.lockTenantAccounts(tx, scope))
  return yield* Effect.forEach(items, applyOne, { concurrency: 1 })
})

export const B2bActor = Actor.make(B2bProtocol, { apply: { wave: apply } })
