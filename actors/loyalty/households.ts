import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import { LoyaltyProtocol } from "./protocol.ts"
import type {
  Contributed, Credited, HouseholdChanged, HouseholdContribute, HouseholdCreate, HouseholdCredit, HouseholdMembership
} from "./householdProtocol.ts"
import { settle } from "./holds.ts"
import { fingerprint } from "./earning.ts"
import { knownMemberOrRefuse, memberOrRefuse, refuse } from "./refusals.ts"
import * as Repo from "./repository.ts"
import { chain, draw, earn as earnLot, entryAt, spendable, type Transition, type Wallet } from "./state.ts"
import { commandTime } from "./clock.ts"

// Households: a pooled wallet members contribute points to (each contributed lot keeps its expiry: a transfer never
// extends it) and redeem from. A member is in at most one household (UNIQUE member_id), at most MAX_MEMBERS each.

export const MAX_MEMBERS = 11

const membershipOf = (memberId: string) =>
  Actor.query(async (tx) => (await tx`SELECT household_id FROM loyalty_household_members WHERE member_id = ${memberId}`)[0]?.household_id as string | undefined)

export const createHousehold = Effect.fn("LoyaltyActor.createHousehold")(function*(cmd: HouseholdCreate) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  yield* memberOrRefuse(cmd.owner_member_id)
  if ((yield* membershipOf(cmd.owner_member_id)) !== undefined) {
    return yield* refuse("HOUSEHOLD_MEMBER_TAKEN", "The member already belongs to a household", { member_id: ["already in a household"] })
  }
  yield* Actor.query(async (tx) => {
    await tx`INSERT INTO loyalty_members (member_id, tenant_id, sandbox, email, first_name, kind)
      VALUES (${cmd.member_id}, ${scope.tenant_id}, ${scope.sandbox}, ${`household:${cmd.member_id}`}, ${cmd.name}, 'household')`
    await tx`INSERT INTO loyalty_households (household_id, tenant_id, sandbox, name, owner_member_id)
      VALUES (${cmd.member_id}, ${scope.tenant_id}, ${scope.sandbox}, ${cmd.name}, ${cmd.owner_member_id})`
    await tx`INSERT INTO loyalty_household_members (household_id, member_id, tenant_id, role) VALUES (${cmd.member_id}, ${cmd.owner_member_id}, ${scope.tenant_id}, 'owner')`
  })
  return { household_id: cmd.member_id, changed: true } satisfies HouseholdChanged
})

export const changeMembership = Effect.fn("LoyaltyActor.changeMembership")(function*(cmd: HouseholdMembership) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const [household] = yield* Actor.query((tx) => tx`SELECT owner_member_id FROM loyalty_households WHERE household_id = ${cmd.member_id} FOR UPDATE`)
  if (household === undefined) return yield* refuse("HOUSEHOLD_NOT_FOUND", "No such household", { household_id: ["not found"] })
  const current = yield* membershipOf(cmd.target_member_id)
  const answer = (changed: boolean) => ({ household_id: cmd.member_id, changed }) satisfies HouseholdChanged
  if (cmd.move === "remove") {
    if (current !== cmd.member_id) return answer(false)
    if (household.owner_member_id === cmd.target_member_id) {
      return yield* refuse("HOUSEHOLD_LIMIT", "The owner cannot leave the household", { member_id: ["is the household's owner"] })
    }
    yield* Actor.query((tx) => tx`DELETE FROM loyalty_household_members WHERE household_id = ${cmd.member_id} AND member_id = ${cmd.target_member_id}`)
    return answer(true)
  }
  if (current === cmd.member_id) return answer(false)
  if (current !== undefined) return yield* refuse("HOUSEHOLD_MEMBER_TAKEN", "The member already belongs to another household", { member_id: ["already in a household"] })
  const [count] = yield* Actor.query((tx) => tx`SELECT count(*)::int AS n FROM loyalty_household_members WHERE household_id = ${cmd.member_id}`)
  if ((count!.n as number) >= MAX_MEMBERS) return yield* refuse("HOUSEHOLD_LIMIT", `A household has at most ${MAX_MEMBERS} members`, { member_id: ["the household is full"] })
  yield* Actor.query((tx) => tx`INSERT INTO loyalty_household_members (household_id, member_id, tenant_id, role)
    VALUES (${cmd.member_id}, ${cmd.target_member_id}, ${scope.tenant_id}, 'member')`)
  return answer(true)
})

/** The member's leg: draws the points (oldest-expiring first) and sends the pool its lots, with their expiries, through the outbox. */
export const contribute = Effect.fn("LoyaltyActor.contribute")(function*(cmd: HouseholdContribute) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* memberOrRefuse(cmd.member_id)
  const settled = settle(member.wallet, now, randomUUID)
  const print = fingerprint({ member_id: cmd.member_id, household_id: cmd.household_id, points: cmd.points })
  const prior = yield* Actor.query((tx) => Repo.findByKey(tx, scope, "transfer", cmd.external_reference_id))
  if (prior !== undefined) {
    if (prior.member_id !== cmd.member_id || prior.fingerprint !== print) {
      return yield* refuse("IDEMPOTENCY_CONFLICT", "external_reference_id was already used for a different request", { external_reference_id: ["already used"] })
    }
    return { transfer_id: prior.entry_id, household_id: cmd.household_id, points: 0, idempotent_replay: true, balances: Repo.balancesOf(settled.wallet) } satisfies Contributed
  }
  if ((yield* membershipOf(cmd.member_id)) !== cmd.household_id) {
    return yield* refuse("NOT_HOUSEHOLD_MEMBER", "The member does not belong to this household", { household_id: ["not the member's household"] })
  }
  const available = spendable(settled.wallet, now)
  if (cmd.points > available) {
    return yield* refuse("INSUFFICIENT_POINTS", `The member has ${available} points available, ${cmd.points} needed`, { points: ["more than the member's available points"], requested: cmd.points, available })
  }
  const { lots, draws } = draw(settled.wallet, cmd.points, now)
  const transferId = randomUUID()
  const wallet: Wallet = { ...settled.wallet, balance_active: settled.wallet.balance_active - cmd.points, lots, next_seq: settled.wallet.next_seq + 1 }
  const entry = entryAt(wallet, { entry_id: transferId, seq: settled.wallet.next_seq, kind: "transfer_out", status: "completed", points: -cmd.points, draws, created_at: now })
  const expiries = new Map(settled.wallet.lots.map((l) => [l.lot_id, l.expires_at]))
  yield* Actor.query((tx) => Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, wallet, [...settled.entries, entry], {
    op: "transfer", external_reference_id: cmd.external_reference_id, fingerprint: print, reason: `to household ${cmd.household_id}`
  }))
  const credit = {
    member_id: cmd.household_id, transfer_id: transferId, from_member_id: cmd.member_id,
    lots: draws.map((d) => ({ points: d.points, expires_at: expiries.get(d.lot_id) ?? null }))
  }
  yield* Actor.emit([yield* Actor.tell(LoyaltyProtocol, "householdCredit", credit, randomUUID())])
  return { transfer_id: transferId, household_id: cmd.household_id, points: cmd.points, idempotent_replay: false, balances: Repo.balancesOf(wallet) } satisfies Contributed
})

/** The pool's leg: one lot per contributed lot, same expiry; at most once per transfer (its key). */
export const credit = Effect.fn("LoyaltyActor.householdCredit")(function*(cmd: HouseholdCredit) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const pool = yield* knownMemberOrRefuse(cmd.member_id)
  if ((yield* Actor.query((tx) => Repo.findByKey(tx, scope, "transfer_in", cmd.transfer_id))) !== undefined) {
    return { transfer_id: cmd.transfer_id, idempotent_replay: true } satisfies Credited
  }
  const t: Transition = chain(pool.wallet, [
    (w) => settle(w, now, randomUUID),
    ...cmd.lots.map((l) => (w: Wallet) =>
      earnLot(w, { lot_id: randomUUID(), entry_id: randomUUID(), points: l.points, status: "confirmed", kind: "transfer_in", expires_at: l.expires_at, lifetime: false }, now))
  ])
  yield* Actor.query((tx) => Repo.saveTransition(tx, scope, cmd.member_id, pool.wallet, t.wallet, t.entries, {
    op: "transfer_in", external_reference_id: cmd.transfer_id, fingerprint: cmd.from_member_id, reason: `from member ${cmd.from_member_id}`
  }))
  return { transfer_id: cmd.transfer_id, idempotent_replay: false } satisfies Credited
})
