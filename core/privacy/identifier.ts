import { normaliseEmail } from "../normalise/email.ts"
import { normalisePhone } from "../normalise/phone.ts"

// What a privacy request names a person by, in the one spelling contacts are stored and matched in: the phone as
// E.164 (so every accepted format of one number is one identifier), the email lower-cased.

export type IdentifierKind = "email" | "phone"

export interface Identifier {
  readonly kind: IdentifierKind
  /** Normalised: E.164, or the lower-cased address. */
  readonly value: string
}

/**
 * The identifier as stored, or undefined when the value is no phone or email at all. A placeholder (a PMS's
 * `noreply@…`, `+34 000 000 000`) normalises to undefined too: no contact is ever stored under one.
 */
export const identifierOf = (kind: IdentifierKind, raw: string): Identifier | undefined => {
  if (kind === "email") {
    const r = normaliseEmail(raw)
    return r.ok ? { kind, value: r.email } : undefined
  }
  const r = normalisePhone(raw)
  return r.ok ? { kind, value: r.e164 } : undefined
}

/** The identifiers a stored contact is reached by. */
export const contactIdentifiers = (contact: { readonly phone: string | null; readonly email: string | null }): Array<Identifier> => [
  ...(contact.phone ? [{ kind: "phone" as const, value: contact.phone }] : []),
  ...(contact.email ? [{ kind: "email" as const, value: contact.email }] : [])
]
