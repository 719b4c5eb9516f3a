import { Schema } from "effect"
import {
  boundedInt, boundedNumber, CurrencyCode, DateString, FreeFormValue, MAX_AMOUNT, maxLength, NonEmptyString, oneOf, SafeString, Uuid, Warning
} from "./common.ts"
import { listOf, ok } from "./list.ts"

// The B2B CRM's public contract: accounts in a hierarchy of at most three levels, their codes, contacts and deals,
// and the attribution of reservations to accounts. Requests refuse JSON null where a field cannot be cleared.

export const AccountTypes = ["agency", "tour_operator", "ota", "corporate", "consortium", "other"] as const
export const ContactRoles = ["booker", "decision_maker", "travel_manager", "accounts", "other"] as const
export const DealTypes = ["group", "corporate_rate", "allotment", "event", "series", "other"] as const
export const DealStages = ["lead", "qualified", "proposal", "negotiation", "won", "lost"] as const
export type DealStage = typeof DealStages[number]
export const AttributionRules = ["agency_code", "promo_code", "rate_code", "agency_id", "manual"] as const

/** Deepest level of the account tree: a root, its children and their children. */
export const MAX_DEPTH = 3

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))
const maxItems = (n: number) => Schema.makeFilter((a: ReadonlyArray<unknown>) => a.length <= n || `at most ${n} items`)
const Code = NonEmptyString.check(Schema.makeFilter((s: string) => [...s.trim()].length <= 100 || "must be at most 100 characters"))
const CodeList = Schema.Array(Code).check(maxItems(100))

export const RateCodeInput = Schema.Struct({
  code: Code,
  /** Only at this hotel; absent or null = chain-wide. */
  hotel_id: nullable(Uuid),
  valid_from: nullable(DateString),
  valid_to: nullable(DateString)
}).check(Schema.makeFilter((r) =>
  r.valid_from == null || r.valid_to == null || r.valid_from <= r.valid_to || { path: ["valid_to"], issue: "must not be before valid_from" }
))
export type RateCodeInput = typeof RateCodeInput.Type

export const CodesInput = Schema.Struct({
  agency_codes: nullable(CodeList),
  promo_codes: nullable(CodeList),
  rate_codes: nullable(Schema.Array(RateCodeInput).check(maxItems(100))),
  /** IATA / TIDS number: 7 or 8 digits. */
  iata: nullable(SafeString)
})
export type CodesInput = typeof CodesInput.Type

const accountFields = {
  parent_id: nullable(Uuid),
  /** The partner's own id of the account (OPERA profile id, ...): unique per account and matched as its agency id. */
  external_id: nullable(Code),
  email_domains: nullable(Schema.Array(SafeString).check(maxItems(50))),
  /** Role and desk mailboxes of the account (`reservas@...`): kept here, never made into a person. */
  desk_emails: nullable(Schema.Array(SafeString).check(maxItems(50))),
  phone: nullable(SafeString),
  country: nullable(SafeString),
  owner_user_id: nullable(maxLength(100))
}

export const CreateAccountRequest = Schema.Struct({
  name: NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters")),
  type: oneOf(AccountTypes),
  codes: opt(CodesInput),
  ...accountFields
})
export type CreateAccountRequest = typeof CreateAccountRequest.Type

/** JSON merge patch (RFC 7396): absent = unchanged, null = cleared; each `codes` list sent replaces that list. */
export const UpdateAccountRequest = Schema.Struct({
  name: opt(NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters"))),
  type: opt(oneOf(AccountTypes)),
  codes: nullable(CodesInput),
  ...accountFields
})
export type UpdateAccountRequest = typeof UpdateAccountRequest.Type

export const RateCodeView = Schema.Struct({
  code: Schema.String,
  hotel_id: Schema.NullOr(Schema.String),
  valid_from: Schema.NullOr(Schema.String),
  valid_to: Schema.NullOr(Schema.String),
  /** The won corporate-rate deal that registered it. */
  deal_id: Schema.NullOr(Schema.String)
})

export const AccountView = Schema.Struct({
  account_id: Schema.String,
  name: Schema.String,
  type: Schema.String,
  parent_id: Schema.NullOr(Schema.String),
  depth: Schema.Number,
  /** Ids from the root of the tree to this account. */
  path: Schema.Array(Schema.String),
  external_id: Schema.NullOr(Schema.String),
  codes: Schema.Struct({
    agency_codes: Schema.Array(Schema.String),
    promo_codes: Schema.Array(Schema.String),
    rate_codes: Schema.Array(RateCodeView),
    iata: Schema.NullOr(Schema.String)
  }),
  email_domains: Schema.Array(Schema.String),
  desk_emails: Schema.Array(Schema.String),
  phone: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  owner_user_id: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type AccountView = typeof AccountView.Type

export const Production = Schema.Struct({
  /** Attributed reservations, cancelled and no-show ones excluded. */
  reservations: Schema.Number,
  room_nights: Schema.Number,
  /** Sum of the reservations' `amount`, per currency. */
  revenue: Schema.Array(Schema.Struct({ currency: Schema.NullOr(Schema.String), amount: Schema.Number }))
})
export type Production = typeof Production.Type

export const AccountContactView = Schema.Struct({
  contact_id: Schema.String,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  role: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  is_primary: Schema.Boolean
})

export const AccountDetail = Schema.Struct({
  ...AccountView.fields,
  children: Schema.Array(Schema.Struct({
    account_id: Schema.String, name: Schema.String, type: Schema.String, depth: Schema.Number, production: Production
  })),
  contacts: Schema.Array(AccountContactView),
  /** Over the account and all its descendants. */
  production: Production
})


export const AccountCreatedData = Schema.Struct({
  account_id: Schema.String,
  depth: Schema.Number,
  path: Schema.Array(Schema.String),
  warnings: Schema.Array(Warning)
})
export class AccountCreated extends Schema.Class<AccountCreated>("AccountCreated")(ok(AccountCreatedData)) {}
export const AccountResponse = ok(AccountView)
export const AccountDetailResponse = ok(AccountDetail)
export const AccountListResponse = listOf("accounts", AccountView)

export const AddContactRequest = Schema.Struct({
  first_name: NonEmptyString,
  last_name: nullable(SafeString),
  email: nullable(SafeString),
  phone: nullable(SafeString),
  role: nullable(oneOf(ContactRoles)),
  title: nullable(maxLength(100)),
  is_primary: opt(Schema.Boolean)
})
export type AddContactRequest = typeof AddContactRequest.Type

export const ContactLinkedData = Schema.Struct({
  contact_id: Schema.NullOr(Schema.String).annotate({
    description: "null only when the person is suppressed by a privacy request (warning subject_suppressed): nothing was linked"
  }),
  account_id: Schema.String,
  /** The person was new to the platform (no contact had this phone or email). */
  is_new_contact: Schema.Boolean,
  role: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  is_primary: Schema.Boolean,
  warnings: Schema.Array(Warning)
})
export type ContactLinkedData = typeof ContactLinkedData.Type
export const ContactLinkedResponse = ok(ContactLinkedData)
/** A person newly linked to the account (201); a link that existed is answered 200 with ContactLinkedResponse. */
export class ContactLinked extends Schema.Class<ContactLinked>("ContactLinked")(ContactLinkedResponse) {}

export const Money = Schema.Struct({
  amount: boundedNumber(0, MAX_AMOUNT),
  currency: CurrencyCode
})

const dealFields = {
  contact_id: nullable(Uuid),
  hotel_ids: nullable(Schema.Array(Uuid).check(maxItems(100))),
  /** For a corporate_rate deal: the contract's first and last day, the validity of the rate codes it registers. */
  arrival: nullable(DateString),
  departure: nullable(DateString),
  room_nights: nullable(boundedInt(0, 1_000_000)),
  value: nullable(Money),
  probability: nullable(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))),
  expected_close: nullable(DateString),
  rate_codes: nullable(CodeList),
  lost_reason: nullable(maxLength(500)),
  external_id: nullable(maxLength(200)),
  owner_user_id: nullable(maxLength(100))
}
const datesInOrder = Schema.makeFilter((d: { readonly arrival?: string | null; readonly departure?: string | null }) =>
  d.arrival == null || d.departure == null || d.arrival <= d.departure || { path: ["departure"], issue: "must not be before arrival" })

export const CreateDealRequest = Schema.Struct({
  account_id: Uuid,
  name: NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters")),
  type: oneOf(DealTypes),
  stage: oneOf(DealStages),
  ...dealFields
}).check(datesInOrder)
export type CreateDealRequest = typeof CreateDealRequest.Type

export const UpdateDealRequest = Schema.Struct({
  name: opt(NonEmptyString),
  type: opt(oneOf(DealTypes)),
  stage: opt(oneOf(DealStages)),
  /** Refused when sent: a deal belongs to the account it was created for. */
  account_id: opt(FreeFormValue()),
  ...dealFields
})
export type UpdateDealRequest = typeof UpdateDealRequest.Type

export const DealView = Schema.Struct({
  deal_id: Schema.String,
  account_id: Schema.String,
  contact_id: Schema.NullOr(Schema.String),
  name: Schema.String,
  type: Schema.String,
  stage: Schema.String,
  lost_reason: Schema.NullOr(Schema.String),
  hotel_ids: Schema.Array(Schema.String),
  arrival: Schema.NullOr(Schema.String),
  departure: Schema.NullOr(Schema.String),
  room_nights: Schema.NullOr(Schema.Number),
  value: Schema.NullOr(Schema.Struct({ amount: Schema.Number, currency: Schema.String })),
  probability: Schema.NullOr(Schema.Number),
  expected_close: Schema.NullOr(Schema.String),
  rate_codes: Schema.Array(Schema.String),
  external_id: Schema.NullOr(Schema.String),
  owner_user_id: Schema.NullOr(Schema.String),
  closed_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type DealView = typeof DealView.Type
export const DealResponse = ok(DealView)
export class DealCreated extends Schema.Class<DealCreated>("DealCreated")(DealResponse) {}
export const DealListResponse = listOf("deals", DealView)

/** Which account a reservation is attributed to, by which rule and code; a domain match only suggests. */
export const Attribution = Schema.Struct({
  account_id: Schema.NullOr(Schema.String),
  rule: Schema.NullOr(Schema.Literals(AttributionRules)),
  /** The code that matched, as it was registered on the account. */
  matched: Schema.NullOr(Schema.String),
  /** The attributed account's path from the root of its tree (empty without an account). */
  path: Schema.Array(Schema.String),
  suggestion: Schema.NullOr(Schema.Struct({
    account_id: Schema.String,
    rule: Schema.Literal("email_domain"),
    matched: Schema.String
  })),
  /** A manual assignment: kept on later upserts until it is removed. */
  manual: Schema.Boolean,
  /** The won corporate-rate deal whose rate code matched. */
  deal_id: Schema.NullOr(Schema.String),
  decided_at: Schema.NullOr(Schema.String)
})
export type Attribution = typeof Attribution.Type

/** `account_id` null: manually attributed to no account (also sticky). */
export const AssignAttributionRequest = Schema.Struct({ account_id: Schema.NullOr(Uuid) })
export const AttributionResponse = ok(Schema.Struct({ reservation_id: Schema.String, attribution: Attribution }))
