import { DateTime, Effect } from "effect"
import * as Actor from "../runtime/Actor.ts"
import { opUnionHandler } from "../runtime/opUnion.ts"
import { contactChangeCommands } from "../shared/contactEvents.ts"
import { loadContactSummaries, resolveContacts } from "../shared/identity.ts"
import * as Repo from "./accountRepository.ts"
import { accountOrRefuse, checkCodesFree, createAccount, refuse, updateAccount } from "./accounts.ts"
import * as Deals from "./dealRepository.ts"
import { codesToRegister, type DealRow, newDeal, patchDeal } from "./deals.ts"
import { LegacyOps } from "./legacyApply.ts"
import { type AddContact, B2bProtocol, type ContactWritten, type CreateDeal, type DealWritten, type UpdateDeal } from "./protocol.ts"

const nowIso = Effect.map(DateTime.nowAsDate, (d) => d.toISOString())

/** A person at the account: resolved by the shared identity rules (the same person is the same contact), then linked. */
const addContact = Effect.fn("B2bActor.addContact")(function*(cmd: AddContact) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  const { envelopeId } = yield* Effect.service(Actor.ActorTransaction)
  yield* accountOrRefuse(cmd.account_id, "id")
  const [resolved] = yield* Actor.query((tx) => resolveContacts(tx, scope, [cmd.profile], { source: "b2b:account", envelopeId }))
  const person = resolved! // the ingress sends only people with a phone or an email
  const [link, summaries] = yield* Actor.query((tx) => Promise.all([
    Deals.linkContact(tx, scope, { account_id: cmd.account_id, contact_id: person.contact_id, role: cmd.role, title: cmd.title, is_primary: cmd.is_primary }),
    loadContactSummaries(tx, [person.contact_id]),
    cmd.desk_email === undefined ? undefined : Deals.addDeskEmail(tx, cmd.account_id, cmd.desk_email)
  ]))
  yield* Actor.emit(contactChangeCommands(subject, { ...scope, occurred_at: yield* nowIso }, [person], summaries, null))
  return {
    account_id: cmd.account_id, contact_id: person.contact_id, is_new_contact: person.is_new, is_new_link: link.inserted, role: link.role,
    title: link.title, is_primary: link.is_primary, warnings: cmd.warnings
  } satisfies ContactWritten
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
  return { deal_id: deal.id, account_id: deal.account_id, stage: deal.stage, registered_codes: [...new Set(codes.map((c) => c.display))] } satisfies DealWritten
})

const createDeal = Effect.fn("B2bActor.createDeal")(function*(cmd: CreateDeal) {
  yield* accountOrRefuse(cmd.account_id, "account_id")
  yield* contactOrRefuse(cmd.deal.contact_id)
  return yield* saveDeal(newDeal(cmd.deal_id, cmd.account_id, cmd.deal, yield* nowIso), cmd.deal.stage === "won")
})

const updateDeal = Effect.fn("B2bActor.updateDeal")(function*(cmd: UpdateDeal) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const existing = yield* Actor.query((tx) => Deals.findDealForUpdate(tx, scope, cmd.account_id, cmd.deal_id))
  if (existing === undefined) return yield* refuse("DEAL_NOT_FOUND", `No deal with id ${JSON.stringify(cmd.deal_id)}`, { id: ["not found"] })
  yield* contactOrRefuse(cmd.set.contact_id)
  const change = patchDeal(existing, cmd.set, yield* nowIso)
  if (!change.ok) return yield* refuse(change.code, change.message, { [change.field]: [change.message] })
  return yield* saveDeal(change.deal, change.becameWon)
})

/**
 * Every write takes the tenant's B2B lock first: the tree and code uniqueness span accounts, so each write must see the
 * ones before it, in any other worker's transaction (the lock, held to commit) and in this one (the actor is serial: a
 * wave's writes run one after another, whatever their message). The lock is re-entrant, so a wave's later writes take
 * it again for one round trip. B2B writes are a sales team's pace, not a PMS feed's: serialising them per tenant costs
 * nothing that matters.
 */
const locked = <P, A, E, R>(write: (cmd: P) => Effect.Effect<A, E, R>) => (cmd: P) =>
  Effect.andThen(Effect.flatMap(Effect.service(Actor.GroupTransaction), ({ scope }) => Actor.query((tx) => Repo.lockTenantAccounts(tx, scope))), write(cmd))

const handlers = {
  createAccount: locked(createAccount),
  updateAccount: locked(updateAccount),
  addContact: locked(addContact),
  createDeal: locked(createDeal),
  updateDeal: locked(updateDeal)
}

export const B2bActor = Actor.make(B2bProtocol, {
  ...handlers,
  /** Deprecated (legacyApply.ts): remove in the release after this one. */
  apply: opUnionHandler<typeof B2bProtocol.messages.apply>(LegacyOps, handlers)
}, { serial: true })
