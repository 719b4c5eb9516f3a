import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { boundedInt, DateTimeWithOffset, maxLength, NonEmptyString, SafeString, Uuid } from "./common.ts"
import { Conflict, InternalError, NotFound, Unavailable, ValidationFailed } from "./errors.ts"
import { BidPlaced, ExperienceView, ok } from "./loyaltyAnswers.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"

// Experience auctions of the Loyalty REST family: set-up and reads with a core key, and the spec's
// `POST /api/v1/loyalty/experiences/bid` (a bid is a hold on the bidder's points until outbid, refused or won).

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))
const MAX_POINTS = 1_000_000_000
const Points = boundedInt(1, MAX_POINTS).annotate({ message: `must be a whole number of points from 1 to ${MAX_POINTS}` })
const Reference = NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters"))

/** An auction runs at most a year. */
export const AUCTION_MAX_DAYS = 366

export const ExperienceRequest = Schema.Struct({
  name: NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters")),
  description: nullable(maxLength(2000)),
  hotel_id: nullable(maxLength(100)),
  starting_bid: Points,
  min_increment: Points,
  /** When bidding ends (in the future, at most AUCTION_MAX_DAYS away). */
  ends_at: DateTimeWithOffset
})
export type ExperienceRequest = typeof ExperienceRequest.Type

export const BidRequest = Schema.Struct({
  member_id: opt(Uuid),
  email: opt(SafeString),
  experience_id: Uuid,
  bid_points: Points,
  external_reference_id: opt(Reference)
})
export type BidRequest = typeof BidRequest.Type

/** A new experience (answered 201). */
export class ExperienceCreated extends Schema.Class<ExperienceCreated>("ExperienceCreated")(ok(ExperienceView)) {}

const writeErrors = [ValidationFailed, Unavailable, InternalError] as const

export const LoyaltyAuctionsGroup = HttpApiGroup.make("loyaltyAuctions")
  .add(
    HttpApiEndpoint.post("createExperience", "/api/v1/loyalty/experiences", {
      payload: ExperienceRequest, success: ExperienceCreated.pipe(HttpApiSchema.status(201)).annotate({ description: "The new experience and its auction" }),
      error: ValidationFailed
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Put an experience up for auction: starting bid, minimum increment, end")
  )
  .add(
    HttpApiEndpoint.post("bid", "/api/v1/loyalty/experiences/bid", {
      payload: BidRequest,
      headers: { "idempotency-key": Schema.optionalKey(SafeString.annotate({ description: "the retry key, when the body has no external_reference_id" })) },
      success: ok(BidPlaced), error: [NotFound, Conflict, ...writeErrors]
    }).annotate(RequiredScope, "guests:write")
      .annotate(OpenApi.Summary, "Bid points on an experience: the points are held until outbid (released) or the auction closes (the winner's are spent)")
  )
  .add(
    HttpApiEndpoint.get("experience", "/api/v1/loyalty/experiences/:experience_id", {
      params: { experience_id: Uuid }, success: ok(ExperienceView), error: [ValidationFailed, NotFound]
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "An experience's auction: status, current high bid, next minimum, bids, winner")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)
