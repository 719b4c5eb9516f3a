/**
 * What the contact search box holds decides the filter of GET /api/v1/contacts: an address (with @) is an email,
 * digits with the usual separators (and perhaps a leading +) a phone, anything else a name (the start of first and
 * last names, accents and case ignored by the API). Empty: no filter, the newest contacts.
 */
export type ContactSearch = { readonly email: string } | { readonly phone: string } | { readonly name: string } | Record<string, never>

export const searchQuery = (text: string): ContactSearch => {
  const t = text.trim()
  if (t === "") return {}
  if (t.includes("@")) return { email: t }
  if (/^\+?[\d\s().-]{6,}$/.test(t)) return { phone: t }
  return { name: t }
}

export const SEARCH_HINT = "A name (or its start: “ana gar”), an email address, or a phone number with its country code"
