import { normaliseEmail, normalisePhone } from "../normalise/index.ts"

export type IdentifyIdentity =
  | { readonly ok: true; readonly email?: string; readonly phone?: string }
  | { readonly ok: false; readonly code: "NOT_A_PERSON" | "VALIDATION_ERROR"; readonly details: Record<string, Array<string>> }

/**
 * The identifiers identify resolves on (stage 1: exact, normalised: email lower-cased, phone E.164). One usable
 * identifier is enough (the other, unusable, is left out); none usable is refused naming each field and why:
 * placeholder or role addresses identify no person.
 */
export const identityOf = (r: { readonly email?: string | undefined; readonly phone?: string | undefined }): IdentifyIdentity => {
  const details: Record<string, Array<string>> = {}
  let placeholder = false
  let email: string | undefined
  let phone: string | undefined
  if (r.email !== undefined) {
    const e = normaliseEmail(r.email)
    if (e.ok) email = e.email
    else {
      placeholder ||= e.reason === "placeholder"
      details["email"] = [e.reason === "placeholder" ? "a placeholder or role address identifies no person" : "not a valid email address"]
    }
  }
  if (r.phone !== undefined) {
    const p = normalisePhone(r.phone)
    if (p.ok) phone = p.e164
    else {
      placeholder ||= p.reason === "placeholder"
      details["phone"] = [p.reason === "placeholder" ? "a placeholder number identifies no person" : "not a valid international phone number (E.164 with country code)"]
    }
  }
  if (email === undefined && phone === undefined) return { ok: false, code: placeholder ? "NOT_A_PERSON" : "VALIDATION_ERROR", details }
  return { ok: true, ...(email === undefined ? {} : { email }), ...(phone === undefined ? {} : { phone }) }
}
