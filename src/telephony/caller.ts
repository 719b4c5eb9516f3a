import { CARRIER_CALLER_LABELS, PLACEHOLDER_TEXT_VALUES } from "../../core/normalise/placeholders.ts"
import { normaliseEmail } from "../../core/normalise/index.ts"

export interface CallerClaim {
  readonly first_name?: string | undefined
  readonly last_name?: string | undefined
  readonly email?: string | undefined
}

const isLabel = (s: string) => PLACEHOLDER_TEXT_VALUES.has(s.toLowerCase()) || CARRIER_CALLER_LABELS.some((re) => re.test(s))

const clean = (s: string | null | undefined): string | undefined => {
  const t = s?.trim().replace(/\s+/g, " ")
  return t && !isLabel(t) ? t.slice(0, 200) : undefined
}

/**
 * What the call's `caller` may say about the guest: names that are not carrier labels or placeholders, and an email
 * only when valid and a person's. `name` is split at its first space when first/last are not given.
 */
export const callerClaim = (caller: { name?: string | null; first_name?: string | null; last_name?: string | null; email?: string | null } | null | undefined): CallerClaim | undefined => {
  if (!caller) return undefined
  let first = clean(caller.first_name)
  let last = clean(caller.last_name)
  const full = clean(caller.name)
  if (first === undefined && last === undefined && full !== undefined) {
    const [head, ...tail] = full.split(" ")
    first = head
    last = tail.length > 0 ? tail.join(" ") : undefined
  }
  const e = caller.email ? normaliseEmail(caller.email) : undefined
  const email = e?.ok ? e.email : undefined
  return first === undefined && last === undefined && email === undefined ? undefined : { first_name: first, last_name: last, email }
}
