import countries from "i18n-iso-countries"

/**
 * Non-ISO codes that PMS systems send often enough to be worth accepting.
 * "UK" is "exceptionally reserved" by ISO 3166 for the United Kingdom and is
 * by far the most common wrong code in hotel data; mapping it is unambiguous.
 * Other reserved codes (e.g. "EU", "UN") do not denote one country and stay
 * unrecognised.
 */
export const COUNTRY_ALIASES: Readonly<Record<string, string>> = { UK: "GB" }

const ALPHA2 = /^[a-z]{2}$/i
const ALPHA3 = /^[a-z]{3}$/i

/**
 * ISO 3166-1 alpha-2 or alpha-3 code (any case, surrounding whitespace
 * ignored) to upper-case alpha-2, or undefined when unrecognised.
 *
 * The shape is checked on the raw input before upper-casing so that
 * non-ASCII letters cannot upper-case into a code ("ıt" -> "IT").
 * Numeric codes ("724") and country names are deliberately NOT accepted:
 * the API contract asks for alpha codes and names are language-dependent.
 * The set of codes is i18n-iso-countries', which includes the user-assigned
 * XK/XKK for Kosovo, widely used in travel documents.
 */
export const normaliseCountry = (raw: string): string | undefined => {
  if (typeof raw !== "string") return undefined
  const trimmed = raw.trim()
  if (ALPHA2.test(trimmed)) {
    const code = trimmed.toUpperCase()
    if (Object.hasOwn(COUNTRY_ALIASES, code)) return COUNTRY_ALIASES[code]
    return countries.isValid(code) ? code : undefined
  }
  if (ALPHA3.test(trimmed)) return countries.alpha3ToAlpha2(trimmed.toUpperCase())
  return undefined
}
