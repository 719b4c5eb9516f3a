/**
 * Placeholder data shared by the normalisers and, later, identity resolution.
 *
 * PMS front desks routinely type junk into mandatory fields ("000000", "n/a",
 * "noreply@hotel.com") or receive OTA relay addresses that change with every
 * booking. Such values look syntactically fine but must never be used to merge
 * two guests into one identity. Everything here is plain data (strings and
 * regular expressions) so it can be reviewed and extended without touching
 * the logic that applies it.
 */

/** Whole values (after trim + lower-case) that mean "no value", in any field. */
export const PLACEHOLDER_TEXT_VALUES: ReadonlySet<string> = new Set([
  "0", "-", "--", "---", ".", "..", "...", "?", "x", "xx", "xxx",
  "n/a", "n.a.", "na", "none", "nil", "null", "undefined", "unknown",
  "no", "nope", "tbc", "tba", "tbd", "sin", "sin email", "sin telefono",
  "no email", "no phone", "noemail", "nophone"
])

export interface PlaceholderPhonePattern {
  /** Stable identifier, returned to callers as the placeholder `kind`. */
  readonly id: string
  readonly description: string
  /**
   * Country calling code (digits, no "+") the pattern is restricted to. When
   * absent the pattern is generic and is tested against BOTH the full digit
   * string (calling code included, so it also works when the calling code
   * itself is bogus, e.g. "+00000000") and the national significant number.
   */
  readonly callingCode?: string
  /** Tested against digits only (no "+", no formatting). */
  readonly pattern: RegExp
}

// "Each digit is followed by its successor (or the end)": matches runs such as
// 123456789 or 9012345678 (wrapping 9 -> 0, the Japanese "090-1234-5678")
// without enumerating every start digit. Seven digits minimum: some countries
// (e.g. Tuvalu) have six-digit national numbers, where "901234" may be real.
const ASCENDING = /^(?:0(?=1|$)|1(?=2|$)|2(?=3|$)|3(?=4|$)|4(?=5|$)|5(?=6|$)|6(?=7|$)|7(?=8|$)|8(?=9|$)|9(?=0|$)){7,}$/
const DESCENDING = /^(?:9(?=8|$)|8(?=7|$)|7(?=6|$)|6(?=5|$)|5(?=4|$)|4(?=3|$)|3(?=2|$)|2(?=1|$)|1(?=0|$)|0(?=9|$)){7,}$/

export const PLACEHOLDER_PHONE_PATTERNS: ReadonlyArray<PlaceholderPhonePattern> = [
  {
    id: "repeated-digit",
    description: "One digit repeated (00000000, 11111111111, +34 999 999 999)",
    pattern: /^(\d)\1+$/
  },
  {
    id: "ascending-sequence",
    description: "Consecutive ascending digits, seven or more (123456789, +1 234 567 8901)",
    pattern: ASCENDING
  },
  {
    id: "descending-sequence",
    description: "Consecutive descending digits, seven or more (987654321)",
    pattern: DESCENDING
  },
  {
    // "+34 600 000 000" is a valid
    // Spanish mobile number according to libphonenumber, yet it is the
    // classic "fill in something" value. Real numbers ending in seven zeros
    // are switchboards at best, never a guest's own phone.
    id: "trailing-zeros",
    description: "Up to three leading digits followed by seven or more zeros (+34 600 000 000)",
    pattern: /^[1-9]\d{0,2}0{7,}$/
  },
  {
    // NANP reserves 555-0100..555-0199 in every area code for fiction.
    // libphonenumber reports e.g. +1 212 555 0100 as valid.
    id: "nanp-fictional-555-01xx",
    description: "North American fictional range NXX-555-01XX",
    callingCode: "1",
    pattern: /^[2-9]\d{2}55501\d{2}$/
  },
  {
    // Ofcom "drama" ranges. libphonenumber already rejects some of them, the
    // explicit entry makes the reason "placeholder" rather than "invalid".
    id: "uk-ofcom-drama-mobile",
    description: "UK Ofcom drama mobile range 07700 900000-900999",
    callingCode: "44",
    pattern: /^7700900\d{3}$/
  },
  {
    id: "uk-ofcom-drama-london",
    description: "UK Ofcom drama London range 020 7946 0000-0999",
    callingCode: "44",
    pattern: /^2079460\d{3}$/
  },
  {
    id: "uk-ofcom-drama-1632",
    description: "UK Ofcom fictional area code 01632 960000-960999",
    callingCode: "44",
    pattern: /^1632960\d{3}$/
  }
]

/** Exact addresses (lower-case) that are known junk but not caught below. */
export const PLACEHOLDER_EMAILS: ReadonlySet<string> = new Set([
  "test@test.com", "example@example.com", "a@a.com", "x@x.com", "xx@xx.com",
  "email@email.com", "mail@mail.com", "no@email.com", "none@none.com",
  "noemail@noemail.com", "sin@email.com", "guest@guest.com", "asdf@asdf.com"
])

/**
 * Local parts (lower-case, any "+tag" removed) that denote a role mailbox,
 * an automated sender or an agency/hotel desk: never a guest's own address.
 */
export const PLACEHOLDER_EMAIL_LOCAL_PARTS: ReadonlySet<string> = new Set([
  "noreply", "no-reply", "no_reply", "no.reply", "donotreply", "do-not-reply",
  "do_not_reply", "nomail", "noemail", "no-email", "none", "null", "unknown",
  "mailer-daemon", "postmaster",
  "reservations", "reservation", "reservas", "reserva", "reservierung",
  "booking", "bookings", "info", "frontdesk", "front-desk", "front.desk",
  "reception", "recepcion", "recepcao"
])

/**
 * Domains that never belong to a guest. Matching is "equal to or a subdomain
 * of", so "invalid" also covers "foo.invalid" (RFC 2606/6761 reserved names).
 */
export const PLACEHOLDER_EMAIL_DOMAINS: ReadonlySet<string> = new Set([
  "example.com", "example.org", "example.net", "test.com",
  "example", "test", "invalid", "localhost"
])

/**
 * OTA relay ("masked") domains: the address forwards to the guest but is
 * unique per booking, so it cannot identify a returning guest. Reported as a
 * placeholder of kind "ota-relay" so a caller may still keep it for messaging.
 */
export const OTA_RELAY_EMAIL_DOMAINS: ReadonlySet<string> = new Set([
  "guest.booking.com",
  "m.expediapartnercentral.com",
  "agoda-messaging.com",
  "guest.airbnb.com"
])

/**
 * Caller-ID names that carriers put where a person's name would be (CNAM labels): never a guest's name.
 * Matched against the trimmed value, case-insensitive.
 */
export const CARRIER_CALLER_LABELS: ReadonlyArray<RegExp> = [
  /^(wireless|cell(ular)?|mobile|pay ?phone|toll ?free|private|unknown|anonymous|restricted|blocked|unavailable)( caller| number| name| phone)?$/i,
  /^(out of area|no caller id|caller id blocked|not available|withheld|number withheld|private number)$/i,
  /^cell phone\b/i,
  /^[a-z]{2} (cell|wireless|mobile)$/i,
  /^v\d{6,}$/i,
  /^[+\d][\d\s().-]*$/
]
