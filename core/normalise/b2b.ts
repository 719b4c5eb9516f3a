/**
 * B2B codes and email domains in the one spelling that registration (the b2b actor), attribution (the reservation
 * actor) and lookups (`GET /b2b/accounts?code=`) compare: written once here so the three can never disagree.
 */

export const CodeKinds = ["agency_code", "promo_code", "rate_code", "iata", "external_id"] as const
export type CodeKind = typeof CodeKinds[number]

/** Longest code kept: PMS rate and agency codes are short; anything longer is not a code. */
export const MAX_CODE_LENGTH = 100

/**
 * A code as attribution compares it: Unicode-compatibility folded (a full-width "ＶＳＯＬ" is "VSOL"), trimmed,
 * inner whitespace collapsed to one space, upper-case. Empty when nothing is left.
 */
export const normaliseCode = (raw: string): string =>
  raw.normalize("NFKC").trim().replace(/\s+/gu, " ").toUpperCase()

/**
 * An IATA (or TIDS) agency number: 7 digits, or 8 with the check digit, written with optional spaces, dots or dashes
 * between digit groups. Digits only, or undefined when it is not one.
 */
export const normaliseIata = (raw: string): string | undefined => {
  const trimmed = raw.normalize("NFKC").trim()
  if (!/^\d[\d .-]*\d$/u.test(trimmed)) return undefined
  const digits = trimmed.replace(/\D/gu, "")
  return digits.length === 7 || digits.length === 8 ? digits : undefined
}

/** A code of a kind in its matching form (IATA numbers digits only), or undefined when it is no valid code. */
export const codeOfKind = (kind: CodeKind, raw: string): string | undefined => {
  if (kind === "iata") return normaliseIata(raw)
  const code = normaliseCode(raw)
  return code === "" || [...code].length > MAX_CODE_LENGTH ? undefined : code
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/u

/** An email domain (`viajessol.es`, an `@` in front tolerated), lower-cased, or undefined when it is none. */
export const normaliseDomain = (raw: string): string | undefined => {
  const d = raw.trim().replace(/^@/u, "").replace(/\.$/u, "").toLowerCase()
  const labels = d.split(".")
  return d.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && /^[a-z]{2,63}$|^xn--/u.test(labels.at(-1)!)
    ? d
    : undefined
}

/**
 * Mailbox providers anyone can sign up with: a guest's address there says nothing about an employer or an agency, so
 * such a domain never suggests an account and cannot be registered as an account's domain. Country variants of the
 * large providers are listed where they are common in hotel data.
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  "gmail.com", "googlemail.com", "yahoo.com", "yahoo.es", "yahoo.fr", "yahoo.de", "yahoo.it", "yahoo.co.uk",
  "yahoo.com.br", "yahoo.com.ar", "yahoo.com.mx", "ymail.com", "rocketmail.com", "hotmail.com", "hotmail.es",
  "hotmail.fr", "hotmail.de", "hotmail.it", "hotmail.co.uk", "outlook.com", "outlook.es", "outlook.fr", "outlook.de",
  "live.com", "live.es", "live.fr", "live.co.uk", "msn.com", "windowslive.com", "icloud.com", "me.com", "mac.com",
  "aol.com", "aim.com", "proton.me", "protonmail.com", "pm.me", "gmx.com", "gmx.net", "gmx.de", "gmx.at", "gmx.ch",
  "web.de", "t-online.de", "freenet.de", "mail.com", "email.com", "yandex.com", "yandex.ru", "mail.ru", "inbox.ru",
  "list.ru", "bk.ru", "rambler.ru", "qq.com", "163.com", "126.com", "sina.com", "naver.com", "daum.net",
  "orange.fr", "wanadoo.fr", "free.fr", "sfr.fr", "laposte.net", "libero.it", "virgilio.it", "tiscali.it", "alice.it",
  "terra.com.br", "uol.com.br", "bol.com.br", "telefonica.net", "movistar.es", "btinternet.com", "sky.com",
  "zoho.com", "tutanota.com", "tuta.io", "fastmail.com", "hey.com", "seznam.cz", "wp.pl", "o2.pl", "onet.pl",
  "interia.pl", "sapo.pt", "rediffmail.com", "comcast.net", "verizon.net", "att.net", "sbcglobal.net", "bigpond.com"
])

export const isFreeMailDomain = (domain: string): boolean => FREE_MAIL_DOMAINS.has(domain.toLowerCase())
