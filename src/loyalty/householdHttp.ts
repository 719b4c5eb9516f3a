import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { isUuid } from "../../schemas/common.ts"
import { Conflict, NotFound } from "../../schemas/errors.ts"
import type { HouseholdRequest } from "../../schemas/loyaltyCredit.ts"
import { answeredAs, invalid, ok, spendRefusal } from "./edge.ts"
import { LoyaltyIngress } from "./ingress.ts"
import { readMember } from "./reads.ts"
import { retryKey, toRedeem } from "./requests.ts"

// Households: a pooled wallet of its own (the member actor keyed by the household id) that members contribute to.

const householdNotFound = () => NotFound.of("No such household", { household_id: ["not found"] }, "HOUSEHOLD_NOT_FOUND")

export const LoyaltyHouseholds = Effect.gen(function*() {
  const { read, resolve, loyalty } = yield* LoyaltyIngress

  const view = Effect.fn("Loyalty.householdView")(function*(p: Principal, householdId: string) {
    const found = yield* read(p, async (tx) => {
      const [h] = await tx`SELECT household_id, name, owner_member_id, created_at FROM loyalty_households
        WHERE household_id = ${householdId} AND tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}`
      if (h === undefined) return undefined
      const members = await tx`SELECT hm.member_id, m.email, hm.role, hm.joined_at FROM loyalty_household_members hm
        JOIN loyalty_members m ON m.member_id = hm.member_id WHERE hm.household_id = ${householdId} ORDER BY hm.joined_at, hm.member_id`
      return { h, members, pool: await readMember(tx, p, householdId) }
    })
    if (found === undefined) return yield* householdNotFound()
    const { h, members, pool } = found
    return ok({
      household_id: h.household_id as string, name: h.name as string, owner_member_id: h.owner_member_id as string, created_at: (h.created_at as Date).toISOString(),
      members: members.map((m) => ({
        member_id: m.member_id as string, email: m.email as string, role: m.role as "owner" | "member", joined_at: (m.joined_at as Date).toISOString()
      })), pooled_balance: pool!.points_balance, pooled_available: pool!.points_available,
      next_expiry: pool!.next_expiry, limits: { max_members: 11 }
    })
  })

  const get = Effect.fn("Loyalty.household")(function*(q: { household_id?: string; member_id?: string; email?: string }) {
    const p = yield* CurrentPrincipal
    if (q.household_id !== undefined) return yield* (isUuid(q.household_id) ? view(p, q.household_id) : invalid({ household_id: ["must be a UUID"] }))
    const memberId = yield* resolve(p, q)
    const [row] = yield* read(p, (tx) => tx`SELECT household_id FROM loyalty_household_members WHERE member_id = ${memberId}`)
    if (row === undefined) return yield* NotFound.of("The member belongs to no household", { member_id: ["in no household"] }, "HOUSEHOLD_NOT_FOUND")
    return yield* view(p, row.household_id as string)
  })

  const post = Effect.fn("Loyalty.households")(function*(r: HouseholdRequest, header: string | undefined) {
    const p = yield* CurrentPrincipal
    if (r.action === "create") {
      if (r.name === undefined) return yield* invalid({ name: ["is required to create a household"] })
      const owner = yield* resolve(p, r)
      const householdId = randomUUID()
      yield* loyalty(p).householdCreate({ member_id: householdId, owner_member_id: owner, name: r.name.trim() }).pipe(answeredAs(spendRefusal))
      return yield* view(p, householdId)
    }
    if (r.household_id === undefined) return yield* invalid({ household_id: ["is required for this action"] })
    const exists = yield* read(p, (tx) => tx`SELECT 1 FROM loyalty_households WHERE household_id = ${r.household_id!} AND tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}`)
    if (exists.length === 0) return yield* householdNotFound()
    const memberId = yield* resolve(p, r)
    if (r.action === "add_member" || r.action === "remove_member") {
      const res = yield* loyalty(p).householdMembership({ member_id: r.household_id, target_member_id: memberId, move: r.action === "add_member" ? "add" : "remove" })
        .pipe(answeredAs(spendRefusal))
      const v = yield* view(p, r.household_id)
      return ok({ ...v.data, changed: res.changed })
    }
    const key = retryKey(r.external_reference_id, header)
    if (!key.ok) return yield* invalid(key.details)
    if (r.action === "contribute") {
      if (r.points === undefined) return yield* invalid({ points: ["is required to contribute"] })
      const { balances, ...c } = yield* loyalty(p).householdContribute({
        member_id: memberId, household_id: r.household_id, points: r.points, external_reference_id: key.key
      }).pipe(answeredAs(spendRefusal))
      return ok({ member_id: memberId, ...c, transfer_status: "accepted" as const, ...balances })
    }
    // redeem: the pool pays, for a member of the household.
    const [member] = yield* read(p, (tx) => tx`SELECT 1 FROM loyalty_household_members WHERE household_id = ${r.household_id!} AND member_id = ${memberId}`)
    if (member === undefined) return yield* Conflict.of("NOT_HOUSEHOLD_MEMBER", "The member does not belong to this household", { member_id: ["not in this household"] })
    const command = toRedeem({ reward_id: r.reward_id, points: r.points, status: r.status, notes: r.notes }, key.key)
    if (!command.ok) return yield* invalid(command.details)
    const { balances, ...res } = yield* loyalty(p).redeem({ ...command.value, member_id: r.household_id, notes: command.value.notes ?? `by member ${memberId}` })
      .pipe(answeredAs(spendRefusal))
    return ok({ household_id: r.household_id, member_id: memberId, ...res, pooled_balance: balances.points_balance, pooled_available: balances.points_available })
  })

  return { get, post }
})
