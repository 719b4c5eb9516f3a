import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Conflict, InternalError, NotFound, NotImplemented, Unavailable, Unprocessable, ValidationFailed } from "./errors.ts"
import {
  ActionEarned, Calculation, CreditQuote, CreditReversed, EarnReversed, FreeNightRedeemed, HoldAnswer, HoldConfirmed, HoldsReleased,
  HouseholdContributed, HouseholdRedeemed, HouseholdView, Liability, ok, ReservationSnapshot
} from "./loyaltyAnswers.ts"
import {
  ActionRequest, CalculateRequest, HouseholdRequest, CreditConfirmRequest, CreditHoldRequest, CreditReleaseRequest, CreditReverseRequest, FreeNightRequest, ReverseRequest
} from "./loyaltyCredit.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"

// The Loyalty REST family, second part: credit holds, reversals, actions, free nights and the read-only reports.

const writeErrors = [ValidationFailed, Unavailable, InternalError] as const
const idempotencyKey = {
  "idempotency-key": Schema.optionalKey(SafeString.annotate({ description: "the retry key, when the body has no external_reference_id" }))
}
const q = Schema.optionalKey(SafeString)

/** A new hold (answered 201; a retried key is answered 200 with the same hold). */
export class HoldPlaced extends Schema.Class<HoldPlaced>("HoldPlaced")(ok(HoldAnswer)) {}
/** What POST /households answers: the household (create, add_member, remove_member), a contribution, or a redemption from the pool. */
const HouseholdAnswer = Schema.Union([HouseholdView, HouseholdContributed, HouseholdRedeemed])

export const LoyaltyCreditGroup = HttpApiGroup.make("loyaltyCredit")
  .add(
    HttpApiEndpoint.get("creditQuote", "/api/v1/loyalty/credit/quote", {
      query: { member_id: q, email: q, amount: q, currency: q }, success: ok(CreditQuote), error: [ValidationFailed, NotFound, Unprocessable]
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "What a member's available points are worth as credit, and the points an amount would take")
  )
  .add(
    HttpApiEndpoint.post("creditHold", "/api/v1/loyalty/credit/hold", {
      payload: CreditHoldRequest, headers: idempotencyKey,
      success: [
        HoldPlaced.pipe(HttpApiSchema.status(201)).annotate({ description: "A new hold" }),
        ok(HoldAnswer).annotate({ description: "The hold a retried key placed before (idempotent_replay: true)" })
      ],
      error: [NotFound, Conflict, Unprocessable, ...writeErrors]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Reserve points as payment on a reservation, on specific lots, until confirmed, released or expired")
  )
  .add(
    HttpApiEndpoint.post("creditConfirm", "/api/v1/loyalty/credit/confirm", { payload: CreditConfirmRequest, success: ok(HoldConfirmed), error: [NotFound, Conflict, ...writeErrors] })
      .annotate(RequiredScope, "guests:write").annotate(OpenApi.Summary, "Spend a hold's points; a hold past its expiry is 409 HOLD_EXPIRED")
  )
  .add(
    HttpApiEndpoint.post("creditRelease", "/api/v1/loyalty/credit/release", { payload: CreditReleaseRequest, success: ok(HoldsReleased), error: [...writeErrors] })
      .annotate(RequiredScope, "guests:write").annotate(OpenApi.Summary, "Free a hold's points; answers released: true even when no active hold is found")
  )
  .add(
    HttpApiEndpoint.post("creditReverse", "/api/v1/loyalty/credit/reverse", { payload: CreditReverseRequest, success: ok(CreditReversed), error: [NotFound, Conflict, ...writeErrors] })
      .annotate(RequiredScope, "guests:write").annotate(OpenApi.Summary, "Give a confirmed hold's points back, atomically and once (a retry restores nothing)")
  )
  .add(
    HttpApiEndpoint.post("reverse", "/api/v1/loyalty/reverse", { payload: ReverseRequest, success: ok(EarnReversed), error: [NotFound, ...writeErrors] })
      .annotate(RequiredScope, "guests:write").annotate(OpenApi.Summary, "Reverse earnings (cancellation, no-show): never below zero, the shortfall reported")
  )
  .add(
    HttpApiEndpoint.post("actions", "/api/v1/loyalty/actions", { payload: ActionRequest, headers: idempotencyKey, success: ok(ActionEarned), error: [NotFound, Conflict, ...writeErrors] })
      .annotate(RequiredScope, "guests:write").annotate(OpenApi.Summary, "Award points for an action (review, survey, app download); a retried key answers idempotent_replay")
  )
  .add(
    HttpApiEndpoint.post("redeemFreeNight", "/api/v1/loyalty/redeem-free-night", {
      payload: FreeNightRequest, headers: idempotencyKey, success: ok(FreeNightRedeemed), error: [NotFound, Conflict, NotImplemented, ...writeErrors]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Redeem a free-night reward for nights (voucher or manual delivery); engine_api delivery is 501")
  )
  .add(
    HttpApiEndpoint.post("calculate", "/api/v1/loyalty/calculate", { payload: CalculateRequest, success: ok(Calculation), error: [ValidationFailed, NotFound, Unprocessable] })
      .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "What a stay would earn, with its breakdown; writes nothing")
  )
  .add(
    HttpApiEndpoint.get("liability", "/api/v1/loyalty/liability", { success: ok(Liability) })
      .annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "Outstanding points (active, held, pending) and their value: the sum of the members' wallets")
  )
  .add(
    HttpApiEndpoint.get("reservationSnapshot", "/api/v1/loyalty/reservation-snapshot", {
      query: { reservation_id: q }, success: ok(ReservationSnapshot), error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "A reservation's credit holds, refunds and earnings: what to reconcile before retrying")
  )
  .add(
    HttpApiEndpoint.post("households", "/api/v1/loyalty/households", {
      payload: HouseholdRequest, headers: idempotencyKey, success: ok(HouseholdAnswer), error: [NotFound, Conflict, ...writeErrors]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Households: create, add_member, remove_member, contribute points to the pool, redeem from the pool")
  )
  .add(
    HttpApiEndpoint.get("household", "/api/v1/loyalty/households", {
      query: { household_id: q, member_id: q, email: q }, success: ok(HouseholdView), error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read").annotate(OpenApi.Summary, "A household (by its id or a member's): members and pooled balances")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
