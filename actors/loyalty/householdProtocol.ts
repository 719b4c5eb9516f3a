import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { Balances } from "./balances.ts"
import { refusedWith } from "./refusalProtocol.ts"

// Member-actor messages of households. A household is a wallet of its own (a loyalty_members row of kind household),
// so its commands are keyed by its id in `member_id` (the actor key), like a member's.

const NullableString = Schema.NullOr(Schema.String)

/** Creates the household's wallet and makes the owner its first member (keyed by the new household id). */
export const HouseholdCreate = Schema.Struct({
  member_id: Schema.String,
  owner_member_id: Schema.String,
  name: Schema.String
})
/** Adds a member to the household, or removes one (keyed by the household id). */
export const HouseholdMembership = Schema.Struct({
  member_id: Schema.String,
  target_member_id: Schema.String,
  move: Schema.Literals(["add", "remove"])
})
/** A member moves points to its household (keyed by the member): its lots are drawn, then credited to the pool. */
export const HouseholdContribute = Schema.Struct({
  member_id: Schema.String,
  household_id: Schema.String,
  points: Schema.Number,
  external_reference_id: Schema.String
})
/** The pool's leg of a contribution (keyed by the household id): one lot per drawn lot, with the same expiry. */
export const HouseholdCredit = Schema.Struct({
  member_id: Schema.String,
  transfer_id: Schema.String,
  from_member_id: Schema.String,
  lots: Schema.Array(Schema.Struct({ points: Schema.Number, expires_at: NullableString }))
})
export type HouseholdCreate = typeof HouseholdCreate.Type
export type HouseholdMembership = typeof HouseholdMembership.Type
export type HouseholdContribute = typeof HouseholdContribute.Type
export type HouseholdCredit = typeof HouseholdCredit.Type

export const HouseholdChanged = Schema.Struct({
  household_id: Schema.String,
  /** create: true; membership: whether the command changed anything (false: already so). */
  changed: Schema.Boolean
})
export const Contributed = Schema.Struct({
  transfer_id: Schema.String,
  household_id: Schema.String,
  points: Schema.Number,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export const Credited = Schema.Struct({ transfer_id: Schema.String, idempotent_replay: Schema.Boolean })

export type HouseholdChanged = typeof HouseholdChanged.Type
export type Contributed = typeof Contributed.Type
export type Credited = typeof Credited.Type

const message = ActorProtocol.message

export const HouseholdMessages = {
  householdCreate: message({ payload: HouseholdCreate, success: HouseholdChanged, error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "HOUSEHOLD_MEMBER_TAKEN"]) }),
  householdMembership: message({
    payload: HouseholdMembership,
    success: HouseholdChanged,
    error: refusedWith(["HOUSEHOLD_NOT_FOUND", "HOUSEHOLD_MEMBER_TAKEN", "HOUSEHOLD_LIMIT"])
  }),
  householdContribute: message({
    payload: HouseholdContribute,
    success: Contributed,
    error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "IDEMPOTENCY_CONFLICT", "NOT_HOUSEHOLD_MEMBER", "INSUFFICIENT_POINTS"])
  }),
  householdCredit: message({ payload: HouseholdCredit, success: Credited, error: refusedWith(["MEMBER_NOT_FOUND"]) })
}
