import { Schema } from "effect"
import { CodeKinds } from "../../core/normalise/b2b.ts"
import { AccountTypes, ContactRoles, DealStages, DealTypes } from "../../schemas/b2b.ts"
import { Warning } from "../../schemas/common.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { ProfileInput } from "../guest/protocol.ts"
import { refusedWith } from "./refusalProtocol.ts"

// The b2b actor's writes: one message each, keyed by the account they write (`account_id`).

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
const NullableString = Schema.NullOr(Schema.String)

/** A code as the ingress normalised it: the matching form, the form as sent, and where and when it applies. */
export const CodeRow = Schema.Struct({
  kind: Schema.Literals(CodeKinds),
  code: Schema.String,
  display: Schema.String,
  hotel_id: NullableString,
  valid_from: NullableString,
  valid_to: NullableString,
  /** The request field it came from (`codes.agency_codes[0]`), named when it is refused. */
  field: Schema.String
})
export type CodeRow = typeof CodeRow.Type

const accountColumns = {
  name: Schema.String,
  type: Schema.Literals(AccountTypes),
  email_domains: Schema.Array(Schema.String),
  desk_emails: Schema.Array(Schema.String),
  phone: NullableString,
  country: NullableString,
  owner_user_id: NullableString
}

export const CreateAccount = Schema.Struct({
  account_id: Schema.String,
  parent_id: NullableString,
  ...accountColumns,
  codes: Schema.Array(CodeRow)
})
export type CreateAccount = typeof CreateAccount.Type

/** A merge patch after normalisation: absent = unchanged; the code kinds listed are replaced by `codes`. */
export const UpdateAccount = Schema.Struct({
  account_id: Schema.String,
  /** Absent: the parent stays; null: detached (the account becomes a root). */
  parent_id: opt(NullableString),
  set: Schema.Struct({
    name: opt(Schema.String),
    type: opt(Schema.Literals(AccountTypes)),
    email_domains: opt(Schema.Array(Schema.String)),
    desk_emails: opt(Schema.Array(Schema.String)),
    phone: opt(NullableString),
    country: opt(NullableString),
    owner_user_id: opt(NullableString)
  }),
  replace_code_kinds: Schema.Array(Schema.Literals(CodeKinds)),
  codes: Schema.Array(CodeRow)
})
export type UpdateAccount = typeof UpdateAccount.Type

export const AddContact = Schema.Struct({
  account_id: Schema.String,
  /** Phone in E.164 and a person's email (never a role mailbox), at least one of them. */
  profile: ProfileInput,
  role: opt(Schema.NullOr(Schema.Literals(ContactRoles))),
  title: opt(NullableString),
  is_primary: opt(Schema.Boolean),
  /** A role mailbox sent as the person's email: kept among the account's desk emails instead. */
  desk_email: opt(Schema.String),
  warnings: Schema.Array(Warning)
})
export type AddContact = typeof AddContact.Type

export const DealColumns = Schema.Struct({
  contact_id: NullableString,
  name: Schema.String,
  type: Schema.Literals(DealTypes),
  stage: Schema.Literals(DealStages),
  lost_reason: NullableString,
  hotel_ids: Schema.Array(Schema.String),
  arrival: NullableString,
  departure: NullableString,
  room_nights: Schema.NullOr(Schema.Number),
  value_amount: Schema.NullOr(Schema.Number),
  value_currency: NullableString,
  probability: Schema.NullOr(Schema.Number),
  expected_close: NullableString,
  rate_codes: Schema.Array(Schema.String),
  external_id: NullableString,
  owner_user_id: NullableString
})
export type DealColumns = typeof DealColumns.Type

export const CreateDeal = Schema.Struct({
  account_id: Schema.String,
  deal_id: Schema.String,
  deal: DealColumns
})
export type CreateDeal = typeof CreateDeal.Type

export const UpdateDeal = Schema.Struct({
  account_id: Schema.String,
  deal_id: Schema.String,
  set: Schema.Struct(Object.fromEntries(Object.entries(DealColumns.fields).map(([k, s]) => [k, opt(s)])) as {
    [K in keyof typeof DealColumns.fields]: Schema.optional<typeof DealColumns.fields[K]>
  })
})
export type UpdateDeal = typeof UpdateDeal.Type

export const AccountWritten = Schema.Struct({
  account_id: Schema.String,
  depth: Schema.Number,
  path: Schema.Array(Schema.String)
})
export const ContactWritten = Schema.Struct({
  account_id: Schema.String,
  contact_id: Schema.String,
  is_new_contact: Schema.Boolean,
  /** The person was not linked to this account before (the edge answers 201). */
  is_new_link: Schema.Boolean,
  role: NullableString,
  title: NullableString,
  is_primary: Schema.Boolean,
  warnings: Schema.Array(Warning)
})
export const DealWritten = Schema.Struct({
  deal_id: Schema.String,
  account_id: Schema.String,
  stage: Schema.String,
  /** Rate codes this write registered on the account (a corporate_rate deal becoming won). */
  registered_codes: Schema.Array(Schema.String)
})
export type AccountWritten = typeof AccountWritten.Type
export type ContactWritten = typeof ContactWritten.Type
export type DealWritten = typeof DealWritten.Type

const message = ActorProtocol.message
const treeRefusals = ["PARENT_NOT_FOUND", "HIERARCHY_TOO_DEEP", "HIERARCHY_CYCLE"] as const

export const B2bMessages = {
  createAccount: message({ payload: CreateAccount, success: AccountWritten, error: refusedWith([...treeRefusals, "CODE_TAKEN"]) }),
  updateAccount: message({ payload: UpdateAccount, success: AccountWritten, error: refusedWith(["ACCOUNT_NOT_FOUND", ...treeRefusals, "CODE_TAKEN"]) }),
  addContact: message({ payload: AddContact, success: ContactWritten, error: refusedWith(["ACCOUNT_NOT_FOUND"]) }),
  createDeal: message({ payload: CreateDeal, success: DealWritten, error: refusedWith(["ACCOUNT_NOT_FOUND", "CONTACT_NOT_FOUND", "CODE_TAKEN"]) }),
  updateDeal: message({
    payload: UpdateDeal,
    success: DealWritten,
    error: refusedWith(["DEAL_NOT_FOUND", "CONTACT_NOT_FOUND", "DEAL_CLOSED", "INVALID_DATES", "CODE_TAKEN"])
  })
}
