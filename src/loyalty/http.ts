import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { NotFound, Unprocessable } from "../../schemas/errors.ts"
import { MemberEnrolled, RedeemRequest } from "../../schemas/loyalty.ts"
import type { RedemptionBatch } from "../../schemas/loyaltyAnswers.ts"
import { answered, batchItems, batchSizeRefused } from "../http/answers.ts"
import { pageRequest } from "../http/paging.ts"
import { conversionQuery, convert } from "./conversion.ts"
import { actionRuleIssues, insertReward, replaceTiers, tierIssues, writeProgram } from "./config.ts"
import { answeredAs, emailOf, invalid, ledgerPage, memberNotFound, ok, refusal, spendRefusal } from "./edge.ts"
import { LoyaltyIngress } from "./ingress.ts"
import { memberIdFor } from "../../core/loyalty/memberId.ts"
import { findEarnMember, findMemberId, readMember, readProgram, readReward, readRewards, readTiers, readTransactions } from "./reads.ts"
import { retryKey, toEarn, toRedeem } from "./requests.ts"
import { makeSubjectCheck, suppressedRefusal } from "../privacy/subjectCheck.ts"

export const LoyaltyLive = HttpApiBuilder.group(Api, "loyalty", (handlers) =>
  Effect.gen(function*() {
    const { read, resolve, loyalty } = yield* LoyaltyIngress
    const subjects = yield* makeSubjectCheck

    /** Confirms or voids a pending earn, in the actor of the member it belongs to. */
    const resolveEarn = Effect.fn("Loyalty.resolveEarn")(function*(transactionId: string, move: "confirm" | "void", points?: number) {
      const p = yield* CurrentPrincipal
      const memberId = yield* read(p, (tx) => findEarnMember(tx, p, transactionId))
      if (memberId === undefined) return yield* NotFound.of(`No earn with transaction_id ${JSON.stringify(transactionId)}`, { transaction_id: ["not found"] }, "EARN_NOT_FOUND")
      const { balances, ...r } = yield* loyalty(p).resolveEarn({ member_id: memberId, transaction_id: transactionId, move, ...(points !== undefined ? { points } : {}) })
        .pipe(answeredAs(spendRefusal))
      return ok({ member_id: memberId, ...r, ...balances })
    })

    /** One redemption: the key, the command, the member, then the member's actor. */
    const redeemOne = Effect.fn("Loyalty.redeemOne")(function*(p: Principal, payload: RedeemRequest, header: string | undefined) {
      const key = retryKey(payload.external_reference_id, header)
      if (!key.ok) return yield* invalid(key.details)
      const command = toRedeem(payload, key.key)
      if (!command.ok) return yield* invalid(command.details)
      const id = yield* resolve(p, payload)
      const { balances, ...r } = yield* loyalty(p).redeem({ ...command.value, member_id: id }).pipe(answeredAs(spendRefusal))
      return { member_id: id, ...r, ...balances }
    })
    const redeemItem = batchItems(RedeemRequest)

    return handlers
      .handle("redeemBatch", Effect.fn("Loyalty.redeemBatch")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        const items = payload.items
        if (items.length === 0 || items.length > 100) return yield* batchSizeRefused("items", 100, items.length)
        // Items naming the same member (as written) run in array order, so a later one sees an earlier one's deduction.
        const groups = new Map<string, Array<number>>()
        items.forEach((item, i) => {
          const m = typeof item === "object" && item !== null ? item as Record<string, unknown> : {}
          const who = String(m.member_id ?? (typeof m.email === "string" ? m.email.trim().toLowerCase() : `#${i}`))
          groups.set(who, [...(groups.get(who) ?? []), i])
        })
        const answers = new Array<typeof RedemptionBatch.Type["results"][number]>(items.length)
        yield* Effect.forEach([...groups.values()], (indexes) =>
          Effect.forEach(indexes, (i) =>
            Effect.map(redeemItem((r) => Effect.map(redeemOne(p, r, undefined), (data) => ({ created: false, data })))(items[i]), (a) => {
              answers[i] = a.success ? { index: i, status: "ok", data: a.data } : { index: i, status: "error", error: a.error }
            }), { concurrency: 1 }), { concurrency: 16 })
        return ok({ results: answers, summary: { ok: answers.filter((a) => a.status === "ok").length, error: answers.filter((a) => a.status === "error").length } })
      }))
      .handle("conversion", Effect.fn("Loyalty.conversion")(function*({ query }) {
        const p = yield* CurrentPrincipal
        const asked = conversionQuery(query)
        if (!asked.ok) return yield* invalid(asked.details)
        const program = yield* read(p, (tx) => readProgram(tx, p))
        if (program === undefined || program.point_value <= 0) {
          return yield* Unprocessable.of("PROGRAM_NOT_CONFIGURED", "No programme point_value: PUT /api/v1/loyalty/program first", { points: ["no point_value to convert with"] })
        }
        if (query.currency !== undefined && query.currency.toUpperCase() !== program.currency) {
          return yield* Unprocessable.of("CURRENCY_MISMATCH", `The programme's currency is ${program.currency}`, { currency: [`must be ${program.currency}`] })
        }
        return ok(convert(asked, program))
      }))
      .handle("confirmEarn", ({ payload }) => resolveEarn(payload.transaction_id, "confirm", payload.points))
      .handle("voidEarn", ({ payload }) => resolveEarn(payload.transaction_id, "void"))
      .handle("putProgram", Effect.fn("Loyalty.putProgram")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        const issues = actionRuleIssues(payload)
        if (Object.keys(issues).length > 0) return yield* invalid(issues)
        const program = yield* read(p, async (tx) => {
          await writeProgram(tx, p, payload)
          return readProgram(tx, p)
        })
        return ok(program!)
      }))
      .handle("putTiers", Effect.fn("Loyalty.putTiers")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        const issues = tierIssues(payload)
        if (Object.keys(issues).length > 0) return yield* invalid(issues)
        const tiers = yield* read(p, async (tx) => {
          await replaceTiers(tx, p, payload)
          return readTiers(tx, p)
        })
        return ok({ tiers, next_cursor: null })
      }))
      .handle("getTiers", Effect.fn("Loyalty.getTiers")(function*() {
        const p = yield* CurrentPrincipal
        return ok({ tiers: yield* read(p, (tx) => readTiers(tx, p)), next_cursor: null })
      }))
      .handle("createReward", Effect.fn("Loyalty.createReward")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        const rewardId = randomUUID()
        const reward = yield* read(p, async (tx) => {
          await insertReward(tx, p, rewardId, payload)
          return readReward(tx, p, rewardId)
        })
        return ok(reward!)
      }))
      .handle("listRewards", Effect.fn("Loyalty.listRewards")(function*({ query }) {
        const p = yield* CurrentPrincipal
        const page = yield* pageRequest(query)
        return ok(yield* read(p, (tx) => readRewards(tx, p, page)))
      }))
      .handle("enroll", Effect.fn("Loyalty.enroll")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        const email = yield* emailOf(payload.email)
        // A person a privacy request suppressed is refused (422, nothing stored): an enrolment has no answer for "left
        // out", and answering a member that does not exist would mislead a programme about points owed. Otherwise an
        // enrolment is never refused: only its transport can fail.
        if (yield* subjects.isSuppressed(p, { email, phone: payload.phone })) return yield* suppressedRefusal("(body)")
        const r = yield* answered(loyalty(p).enroll({
          member_id: memberIdFor(p, email), email, first_name: payload.first_name?.trim() || null,
          last_name: payload.last_name?.trim() || null, phone: payload.phone?.trim() || null,
          ...(payload.loyalty_balance !== undefined ? { loyalty_balance: payload.loyalty_balance } : {})
        }))
        const data = { member_id: r.member_id, is_new: r.is_new, reactivated: r.reactivated, email, ...r.balances }
        return r.is_new ? new MemberEnrolled(ok(data)) : ok(data)
      }))
      .handle("unsubscribe", Effect.fn("Loyalty.unsubscribe")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        const id = yield* resolve(p, payload)
        const r = yield* loyalty(p).unsubscribe({ member_id: id, reason: payload.reason ?? null }).pipe(answeredAs(spendRefusal))
        return ok({ member_id: id, status: "unsubscribed", already_unsubscribed: r.was_unsubscribed, ...r.balances })
      }))
      .handle("member", Effect.fn("Loyalty.member")(function*({ query }) {
        const p = yield* CurrentPrincipal
        const id = yield* resolve(p, query)
        const member = yield* read(p, (tx) => readMember(tx, p, id))
        if (member === undefined) return yield* memberNotFound("member_id")
        return ok(member)
      }))
      .handle("check", Effect.fn("Loyalty.check")(function*({ query }) {
        const p = yield* CurrentPrincipal
        const email = yield* emailOf(query.email)
        const member = yield* read(p, async (tx) => {
          const id = await findMemberId(tx, p, { email })
          return id === undefined ? undefined : readMember(tx, p, id)
        })
        const active = member !== undefined && member.status === "active"
        return ok({
          is_member: active,
          member_summary: !active ? null : {
            member_id: member.member_id, tier_name: member.tier?.name ?? null, tier_slug: member.tier?.slug ?? null,
            points_balance: member.points_balance, lifetime_points: member.lifetime_points, joined_at: member.joined_at
          }
        })
      }))
      .handle("transactions", Effect.fn("Loyalty.transactions")(function*({ query }) {
        const p = yield* CurrentPrincipal
        const page = yield* pageRequest(query)
        const id = yield* resolve(p, { member_id: query.member_id, email: query.email })
        return ok(ledgerPage(id, yield* read(p, (tx) => readTransactions(tx, p, id, page))))
      }))
      .handle("earn", Effect.fn("Loyalty.earn")(function*({ payload, headers }) {
        const p = yield* CurrentPrincipal
        const key = retryKey(payload.external_reference_id, headers["idempotency-key"])
        if (!key.ok) return yield* invalid(key.details)
        const command = toEarn(payload, key.key)
        if (!command.ok) return yield* invalid(command.details)
        const id = yield* resolve(p, payload)
        const { balances, ...r } = yield* loyalty(p).earn({ ...command.value, member_id: id }).pipe(answeredAs(refusal))
        return ok({ member_id: id, ...r, points_deducted: 0, ...balances })
      }))
      .handle("applyDiscount", Effect.fn("Loyalty.applyDiscount")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        if ((payload.points !== undefined) === (payload.amount !== undefined)) return yield* invalid({ points: ["send either points or amount (with currency)"] })
        if (payload.amount !== undefined && payload.currency === undefined) return yield* invalid({ currency: ["is required with amount"] })
        const id = yield* resolve(p, payload)
        const { balances, discount_minor, ...r } = yield* loyalty(p).applyDiscount({
          member_id: id, reservation_id: payload.reservation_id ?? null, reference_id: payload.reference_id ?? null,
          ...(payload.points !== undefined ? { points: payload.points } : { amount_minor: Math.round(payload.amount! * 100), currency: payload.currency!.toUpperCase() })
        }).pipe(answeredAs(refusal))
        return ok({ member_id: id, ...r, discount_amount: discount_minor / 100, reference_id: payload.reference_id ?? null, ...balances })
      }))
      .handle("redeem", Effect.fn("Loyalty.redeem")(function*({ payload, headers }) {
        const p = yield* CurrentPrincipal
        return ok(yield* redeemOne(p, payload, headers["idempotency-key"]))
      }))
  }))
