import { Schema } from "effect"
import { SafeString } from "./text.ts"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Conflict, InternalError, NotFound, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import { EarnRequest, EnrollRequest, DiscountRequest, MemberEnrolled, RedemptionBatchRequest, ResolveEarnRequest, ConfirmEarnRequest, UnsubscribeRequest, ProgramRequest, RedeemRequest, RewardRequest, TiersRequest } from "./loyalty.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { PageQuery } from "./list.ts"
import {
  Conversion, DiscountApplied, EarnResolved, Earned, Enrolled, LedgerPage, listOf, MemberCheck, MemberView, ok, ProgramView, RedemptionBatch, Redeemed,
  RewardView, TierView, Unsubscribed
} from "./loyaltyAnswers.ts"

const writeErrors = [ValidationFailed, Unavailable, InternalError] as const
const idempotencyKey = {
  "idempotency-key": Schema.optionalKey(SafeString.annotate({ description: "the retry key, when the body has no external_reference_id" }))
}
const memberQuery = { member_id: Schema.optionalKey(SafeString), email: Schema.optionalKey(SafeString) }

export const LoyaltyGroup = HttpApiGroup.make("loyalty")
  .add(
    HttpApiEndpoint.put("putProgram", "/api/v1/loyalty/program", { payload: ProgramRequest, success: ok(ProgramView), error: ValidationFailed })
      .annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Set the programme: currency, points per unit and per night, pending days, expiry months, point value")
  )
  .add(
    HttpApiEndpoint.put("putTiers", "/api/v1/loyalty/tiers", { payload: TiersRequest, success: listOf("tiers", TierView), error: ValidationFailed })
      .annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Replace the tiers; ranked by threshold, each on qualifying points or nights")
  )
  .add(
    HttpApiEndpoint.get("getTiers", "/api/v1/loyalty/tiers", { success: listOf("tiers", TierView) })
      .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "The tiers, lowest first")
  )
  .add(
    HttpApiEndpoint.post("createReward", "/api/v1/loyalty/rewards", {
      payload: RewardRequest,
      success: ok(RewardView).pipe(HttpApiSchema.status(201)).annotate({ description: "The new reward and its reward_id" }),
      error: ValidationFailed
    }).annotate(RequiredScope, "guests:write").annotate(OpenApi.Summary, "Add a reward to the catalogue")
  )
  .add(
    HttpApiEndpoint.get("listRewards", "/api/v1/loyalty/rewards", { query: PageQuery, success: listOf("rewards", RewardView), error: ValidationFailed })
      .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "The reward catalogue, oldest first, each with auto_fulfill and stock_remaining; limit 1-100 (25), cursor = next_cursor")
  )
  .add(
    HttpApiEndpoint.post("enroll", "/api/v1/loyalty/enroll", {
      payload: EnrollRequest,
      success: [
        MemberEnrolled.pipe(HttpApiSchema.status(201)).annotate({ description: "A new member" }),
        ok(Enrolled).annotate({ description: "Already a member: profile blanks filled; points kept unless loyalty_balance is sent" })
      ],
      // 422 SUBJECT_SUPPRESSED: the guest is suppressed by a privacy request; nothing was stored.
      error: [Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "guests:write").annotate(OpenApi.Summary, "Enrol a guest by email (a repeat is no error)")
  )
  .add(
    HttpApiEndpoint.post("unsubscribe", "/api/v1/loyalty/unsubscribe", { payload: UnsubscribeRequest, success: ok(Unsubscribed), error: [NotFound, ...writeErrors] })
      .annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Leave the programme (a repeat is no error); points are kept for a re-enrolment, earning and spending stop")
  )
  .add(
    HttpApiEndpoint.get("member", "/api/v1/loyalty/member", { query: memberQuery, success: ok(MemberView), error: [ValidationFailed, NotFound] })
      .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "A member's profile, balances and tier, by member_id or email")
  )
  .add(
    HttpApiEndpoint.get("check", "/api/v1/loyalty/check", { query: { email: Schema.optionalKey(SafeString) }, success: ok(MemberCheck), error: ValidationFailed })
      .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "Whether an email is a member, with its summary")
  )
  .add(
    HttpApiEndpoint.get("transactions", "/api/v1/loyalty/transactions", {
      query: { ...memberQuery, ...PageQuery },
      success: ok(LedgerPage),
      error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "A member's ledger, newest first, each movement with balance_after; limit 1-100 (25), cursor = next_cursor")
  )
  .add(
    HttpApiEndpoint.post("earn", "/api/v1/loyalty/points", {
      payload: EarnRequest, headers: idempotencyKey, success: ok(Earned), error: [NotFound, Conflict, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Award points (explicit, or from a stay's amount and nights); a retried key answers idempotent_replay")
  )
  .add(
    HttpApiEndpoint.post("confirmEarn", "/api/v1/loyalty/points/confirm", { payload: ConfirmEarnRequest, success: ok(EarnResolved), error: [NotFound, Conflict, ...writeErrors] })
      .annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Confirm a pending earn: its points become spendable and count in lifetime points; a repeat replays")
  )
  .add(
    HttpApiEndpoint.post("voidEarn", "/api/v1/loyalty/points/void", { payload: ResolveEarnRequest, success: ok(EarnResolved), error: [NotFound, Conflict, ...writeErrors] })
      .annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Void a pending earn: its points are dropped; a repeat replays, a confirmed earn is a 409")
  )
  .add(
    HttpApiEndpoint.post("redeem", "/api/v1/loyalty/redeem", {
      payload: RedeemRequest, headers: idempotencyKey, success: ok(Redeemed), error: [NotFound, Conflict, ...writeErrors]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Spend points on a reward or an amount, oldest-expiring points first; a retried key deducts nothing")
  )
  .add(
    HttpApiEndpoint.post("applyDiscount", "/api/v1/loyalty/apply-discount", {
      payload: DiscountRequest, success: ok(DiscountApplied), error: [NotFound, Conflict, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Spend points as a money discount; not idempotent (reference_id is metadata): a resend deducts again")
  )
  .add(
    HttpApiEndpoint.post("redeemBatch", "/api/v1/loyalty/redemptions/batch", { payload: RedemptionBatchRequest, success: ok(RedemptionBatch), error: [...writeErrors] })
      .annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Up to 100 redemptions, each applied on its own: per-item status ok (with data) or error (with the error)")
  )
  .add(
    HttpApiEndpoint.get("conversion", "/api/v1/loyalty/conversion", {
      query: { points: Schema.optionalKey(SafeString), amount: Schema.optionalKey(SafeString), currency: Schema.optionalKey(SafeString) },
      success: ok(Conversion),
      error: [ValidationFailed, Unprocessable]
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "Points to money (floored) or money to points (ceiled) at the programme's point_value")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
