import { Effect, Predicate } from "effect"
import type { LoyaltyRefused } from "../../actors/loyalty/protocol.ts"
import { normaliseEmail } from "../../core/normalise/index.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "../../schemas/errors.ts"
import { answered } from "../http/answers.ts"
import { summarise } from "../http/issues.ts"

// What the loyalty handlers share: the answer envelope and the core error shapes of refusals.

/** The core success envelope: each handler returns its typed answer, encoded through its declared schema. */
export { ok } from "../http/answers.ts"
/** A ledger page as answered: `transactions`, and the same list as `items` (its old name, kept one release). */
export const ledgerPage = <A>(memberId: string, page: { readonly transactions: ReadonlyArray<A>; readonly next_cursor: string | null }) =>
  ({ member_id: memberId, transactions: page.transactions, items: page.transactions, next_cursor: page.next_cursor })
export const invalid = (details: Record<string, Array<string>>) => ValidationFailed.of(summarise(details), details)
export const memberNotFound = (field: string) => NotFound.of("No loyalty member matches", { [field]: ["no such member"] }, "MEMBER_NOT_FOUND")

/** The actor's refusals in the core error shape: missing things 404, state conflicts 409, programme gaps 422. */
export const refusal = (e: LoyaltyRefused) =>
  e.code.endsWith("_NOT_FOUND") ? NotFound.of(e.message, e.details, e.code)
  : e.code === "PROGRAM_NOT_CONFIGURED" || e.code === "CURRENCY_MISMATCH" || e.code === "AMOUNT_TOO_SMALL" ? Unprocessable.of(e.code, e.message, e.details)
  : Conflict.of(e.code, e.message, e.details)

/** Refusals of writes that never involve the programme's rates: only 404 and 409. */
export const spendRefusal = (e: LoyaltyRefused) =>
  e.code.endsWith("_NOT_FOUND") ? NotFound.of(e.message, e.details, e.code) : Conflict.of(e.code, e.message, e.details)

/**
 * An answer of the loyalty actor as the edge gives it: a refusal as `refused` renders it, a transport failure in the
 * core error shape (`answered`).
 */
export const answeredAs = <B>(refused: (e: LoyaltyRefused) => B) => <A, E, R>(call: Effect.Effect<A, E, R>) =>
  // Typed by hand: a refusal (with any of its message's codes) is replaced by its rendering, any other error stays.
  answered(Effect.mapError(call, (e) => (isRefused(e) ? refused(e) : e)) as Effect.Effect<A, Exclude<E, LoyaltyRefused> | B, R>)

const isRefused = (e: unknown): e is LoyaltyRefused => Predicate.isTagged(e, "LoyaltyRefused")

/** A normalised email, or the 400 naming the field. */
export const emailOf = (raw: string | undefined, field = "email") => {
  const e = raw === undefined ? undefined : normaliseEmail(raw)
  return e?.ok === true ? Effect.succeed(e.email) : Effect.fail(invalid({ [field]: [raw === undefined ? "is required" : "must be a valid email address"] }))
}
