import { Schema } from "effect"
import { refusalsOf } from "../shared/refusals.ts"

// How the b2b actor refuses a write: one error type, each message declaring the codes it may refuse with.

export const RefusalCodes = [
  "ACCOUNT_NOT_FOUND", "PARENT_NOT_FOUND", "HIERARCHY_TOO_DEEP", "HIERARCHY_CYCLE", "CODE_TAKEN", "DEAL_NOT_FOUND",
  "DEAL_CLOSED", "INVALID_DATES", "CONTACT_NOT_FOUND"
] as const
export type RefusalCode = typeof RefusalCodes[number]

/** Why the b2b actor refused a write (nothing of it was stored); `details` names the offending field. */
export class B2bRefused extends Schema.TaggedError<B2bRefused>()("B2bRefused", {
  code: Schema.Literals(RefusalCodes),
  message: Schema.String,
  details: Schema.Record(Schema.String, Schema.Unknown)
}) {}

/** A refusal with one of the codes `C`. */
export type Refused<C extends RefusalCode> = B2bRefused & { readonly code: C }

/** The error of a message that refuses only with `codes` (B2bRefused, its code narrowed: actors/shared/refusals.ts). */
export const refusedWith = refusalsOf(B2bRefused)
