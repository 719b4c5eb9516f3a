import { Effect } from "effect"
import { type Identifier, identifierOf } from "../../core/privacy/identifier.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Warning } from "../../schemas/common.ts"
import { Unprocessable } from "../../schemas/errors.ts"
import { Suppressions } from "./Suppressions.ts"

// The one check every ingress family makes before a person reaches a stream (issue 26, "suppression first"): is any
// phone or email the request names for them suppressed by a privacy request? The families differ only in what they
// answer for a suppressed person; the answers never repeat the identifier (a warning names the field, not the value).

/** The warning code of a person left out for a suppression (fixed interface). */
export const SUBJECT_SUPPRESSED = "subject_suppressed"

/** A person as a request names them: a phone and an email as sent (normalised here; unusable values name no one). */
export interface NamedPerson {
  readonly email?: string | null | undefined
  readonly phone?: string | null | undefined
}

/** The identifiers a person is named by, in stored spelling. */
export const identifiersOf = (p: NamedPerson): Array<Identifier> => {
  const out: Array<Identifier> = []
  if (p.phone != null && p.phone !== "") {
    const phone = identifierOf("phone", p.phone)
    if (phone) out.push(phone)
  }
  if (p.email != null && p.email !== "") {
    const email = identifierOf("email", p.email)
    if (email) out.push(email)
  }
  return out
}

/** The warning an answer carries for a person left out; `field` names them in the request (`guests[1]`, `from`). */
export const suppressedWarning = (field: string): Warning => ({
  field,
  code: SUBJECT_SUPPRESSED,
  message: "This person is suppressed by a privacy request: nothing about them was stored"
})

/**
 * For the families whose answer has no way to say "accepted, and left out" (an enrolment, an identify): 422, the
 * same status those families give a placeholder address that identifies no one. Nothing was stored; a retry changes
 * nothing until the suppression is lifted.
 */
export const suppressedRefusal = (field: string) =>
  Unprocessable.of("SUBJECT_SUPPRESSED", "The person is suppressed by a privacy request: nothing was stored", {
    [field]: ["names a person suppressed by a privacy request"]
  })

/**
 * The check, with the service it reads taken once (when a handler group or runner is built, so the check adds no
 * requirement to the effects that call it).
 */
export const makeSubjectCheck = Effect.gen(function*() {
  const suppressions = yield* Suppressions

  /**
   * Which of `people` are suppressed in the scope (by index), in one look-up for all of them. A person is suppressed
   * when any identifier they are named by is: a guest sent with a suppressed email and a new phone is still that guest.
   */
  const suppressedPeople = Effect.fn("Privacy.suppressedPeople")(function*(scope: TenantScope, people: ReadonlyArray<NamedPerson>) {
    if (people.length === 0 || !(yield* suppressions.any(scope))) return new Set<number>()
    const named = people.map(identifiersOf)
    const all = named.flat()
    if (all.length === 0) return new Set<number>()
    const suppressed = yield* suppressions.suppressed(scope, all)
    if (suppressed.size === 0) return new Set<number>()
    return new Set(named.flatMap((ids, i) => (ids.some((id) => suppressed.has(id.value)) ? [i] : [])))
  })

  /** Whether one person is suppressed in the scope. */
  const isSuppressed = (scope: TenantScope, person: NamedPerson) => Effect.map(suppressedPeople(scope, [person]), (s) => s.size > 0)

  return { suppressedPeople, isSuppressed }
})

export type SubjectCheck = Effect.Success<typeof makeSubjectCheck>
