import type { CodeRow, CreateAccount, UpdateAccount } from "../../actors/b2b/protocol.ts"
import { type CodeKind, codeOfKind, isFreeMailDomain, normaliseDomain } from "../../core/normalise/b2b.ts"
import { normaliseCountry, normaliseEmail, normalisePhone } from "../../core/normalise/index.ts"
import type { CodesInput, CreateAccountRequest, UpdateAccountRequest } from "../../schemas/b2b.ts"

// Account requests → b2b actor commands: codes to their matching form, domains, desk emails, phone and country
// checked, every problem named by its field (400), nothing sent to the actor unless all of it is usable.

export type Issues = Record<string, Array<string>>
export type Checked<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly details: Issues }

const issue = (issues: Issues, field: string, message: string) => void (issues[field] ??= []).push(message)

/** The code kinds `codes` and `external_id` of a request name (sent, even as null), and their rows. */
export const accountCodes = (codes: CodesInput | null | undefined, externalId: string | null | undefined, issues: Issues) => {
  const replaced: Array<CodeKind> = []
  const rows: Array<CodeRow> = []
  const seen = new Set<string>()
  const add = (kind: CodeKind, raw: string, field: string, extra: Pick<CodeRow, "hotel_id" | "valid_from" | "valid_to"> = { hotel_id: null, valid_from: null, valid_to: null }) => {
    const code = codeOfKind(kind, raw)
    if (code === undefined) return issue(issues, field, kind === "iata" ? "must be an IATA number of 7 or 8 digits" : "must hold a code")
    const key = `${kind}|${code}|${extra.hotel_id ?? ""}`
    if (seen.has(key)) return issue(issues, field, "is listed twice")
    seen.add(key)
    rows.push({ kind, code, display: raw.trim().replace(/\s+/gu, " "), field, ...extra })
  }
  if (codes !== undefined) {
    const all = codes === null
    if (all || codes.agency_codes !== undefined) replaced.push("agency_code")
    if (all || codes.promo_codes !== undefined) replaced.push("promo_code")
    if (all || codes.rate_codes !== undefined) replaced.push("rate_code")
    if (all || codes.iata !== undefined) replaced.push("iata")
    codes?.agency_codes?.forEach((c, i) => add("agency_code", c, `codes.agency_codes[${i}]`))
    codes?.promo_codes?.forEach((c, i) => add("promo_code", c, `codes.promo_codes[${i}]`))
    codes?.rate_codes?.forEach((r, i) =>
      add("rate_code", r.code, `codes.rate_codes[${i}].code`, { hotel_id: r.hotel_id ?? null, valid_from: r.valid_from ?? null, valid_to: r.valid_to ?? null }))
    if (codes?.iata != null) add("iata", codes.iata, "codes.iata")
  }
  if (externalId !== undefined) {
    replaced.push("external_id")
    if (externalId !== null) add("external_id", externalId, "external_id")
  }
  return { replaced, rows }
}

const domains = (raw: ReadonlyArray<string>, issues: Issues): Array<string> => {
  const out = new Set<string>()
  raw.forEach((d, i) => {
    const domain = normaliseDomain(d)
    if (domain === undefined) issue(issues, `email_domains[${i}]`, "must be a domain such as viajessol.es")
    else if (isFreeMailDomain(domain)) issue(issues, `email_domains[${i}]`, "is a free-mail domain: it names no company")
    else out.add(domain)
  })
  return [...out]
}

const ROLE_MAILBOX = /^[^\s@]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/iu

/** A desk mailbox: a well-formed address, role local parts (`reservas@`) being exactly what belongs here. */
export const deskEmail = (raw: string): string | undefined => {
  const r = normaliseEmail(raw)
  if (r.ok) return r.email
  return r.reason === "placeholder" && r.kind === "role" && ROLE_MAILBOX.test(raw.trim()) ? raw.trim().toLowerCase() : undefined
}

const deskEmails = (raw: ReadonlyArray<string>, issues: Issues): Array<string> => {
  const out = new Set<string>()
  raw.forEach((e, i) => {
    const email = deskEmail(e)
    if (email === undefined) issue(issues, `desk_emails[${i}]`, "must be a usable email address")
    else out.add(email)
  })
  return [...out]
}

const phoneOf = (raw: string | null, issues: Issues): string | null => {
  if (raw === null || raw.trim() === "") return null
  const r = normalisePhone(raw)
  if (r.ok) return r.e164
  issue(issues, "phone", "must be a valid phone number with its country code")
  return null
}

const countryOf = (raw: string | null, issues: Issues): string | null => {
  if (raw === null || raw.trim() === "") return null
  const c = normaliseCountry(raw)
  if (c === undefined) issue(issues, "country", "must be an ISO 3166-1 country code")
  return c ?? null
}

const result = <A>(issues: Issues, value: A): Checked<A> => (Object.keys(issues).length > 0 ? { ok: false, details: issues } : { ok: true, value })

export const toCreateAccount = (r: CreateAccountRequest, accountId: string): Checked<CreateAccount> => {
  const issues: Issues = {}
  const { rows } = accountCodes(r.codes, r.external_id ?? undefined, issues)
  return result(issues, {
    account_id: accountId,
    parent_id: r.parent_id ?? null,
    name: r.name.trim(),
    type: r.type,
    email_domains: domains(r.email_domains ?? [], issues),
    desk_emails: deskEmails(r.desk_emails ?? [], issues),
    phone: phoneOf(r.phone ?? null, issues),
    country: countryOf(r.country ?? null, issues),
    owner_user_id: r.owner_user_id ?? null,
    codes: rows
  })
}

export const toUpdateAccount = (r: UpdateAccountRequest, accountId: string): Checked<UpdateAccount> => {
  const issues: Issues = {}
  const { replaced, rows } = accountCodes(r.codes, r.external_id, issues)
  const set: Record<string, unknown> = {}
  if (r.name !== undefined) set.name = r.name.trim()
  if (r.type !== undefined) set.type = r.type
  if (r.email_domains !== undefined) set.email_domains = domains(r.email_domains ?? [], issues)
  if (r.desk_emails !== undefined) set.desk_emails = deskEmails(r.desk_emails ?? [], issues)
  if (r.phone !== undefined) set.phone = phoneOf(r.phone, issues)
  if (r.country !== undefined) set.country = countryOf(r.country, issues)
  if (r.owner_user_id !== undefined) set.owner_user_id = r.owner_user_id
  return result(issues, {
    account_id: accountId,
    ...(r.parent_id !== undefined ? { parent_id: r.parent_id } : {}),
    set: set as UpdateAccount["set"],
    replace_code_kinds: replaced,
    codes: rows
  })
}

/** Hotels an account's codes name, with their fields, for the edge to check against the tenant's hotels. */
export const codeHotels = (rows: ReadonlyArray<CodeRow>) =>
  rows.flatMap((r) => (r.hotel_id === null ? [] : [{ hotel_id: r.hotel_id, field: r.field.replace(/\.code$/u, ".hotel_id") }]))
