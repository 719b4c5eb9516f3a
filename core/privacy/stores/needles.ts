import type { Subject } from "../store.ts"

/**
 * What names a subject in a row, in the spellings rows hold it: the contact ids, the emails (lower-cased, as stored),
 * the phones as E.164 and as bare digits (a WhatsApp address, `wa_id`, is the number without its "+"). Copies kept
 * whole (webhook bodies, envelopes, stored answers) are searched for `patterns`: ILIKE patterns of each, the digits
 * standing for both phone spellings.
 */
export interface Needles {
  readonly contactIds: Array<string>
  readonly emails: Array<string>
  readonly phones: Array<string>
  /** Phones and their digits-only spellings: what an address column (WhatsApp, SMS) may hold. */
  readonly addresses: Array<string>
  readonly patterns: Array<string>
  /** Lower-cased strings whose presence in a decoded copy names the subject. */
  readonly words: Array<string>
}

/** `value` as a literal inside an ILIKE pattern (backslash is the default escape). */
const literal = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`)

export const needlesOf = (subject: Subject): Needles => {
  const emails = subject.identifiers.filter((i) => i.kind === "email").map((i) => i.value.toLowerCase())
  const phones = subject.identifiers.filter((i) => i.kind === "phone").map((i) => i.value)
  const digits = phones.map((p) => p.replace(/^\+/, ""))
  const contactIds = [...subject.contactIds]
  const words = [...new Set([...contactIds, ...emails, ...digits].map((w) => w.toLowerCase()))]
  return {
    contactIds, emails, phones,
    addresses: [...new Set([...phones, ...digits])],
    patterns: words.map((w) => `%${literal(w)}%`),
    words
  }
}

/** The needles with more ids that name the subject in copies (its loyalty member ids: the loyalty actor's key). */
export const withIds = (needles: Needles, ids: ReadonlyArray<string>): Needles => {
  const more = ids.map((id) => id.toLowerCase()).filter((id) => !needles.words.includes(id))
  return { ...needles, words: [...needles.words, ...more], patterns: [...needles.patterns, ...more.map((w) => `%${literal(w)}%`)] }
}

/** Whether decoded text names the subject (case-insensitive, as the patterns). */
export const namesSubject = (needles: Needles, text: string): boolean => {
  const lower = text.toLowerCase()
  return needles.words.some((w) => lower.includes(w))
}

/** A pattern list that matches nothing, for ILIKE ANY when the subject has no words (postgres.js sends `{}`). */
export const hasWords = (needles: Needles) => needles.words.length > 0
