import type { WebsiteWarning } from "./protocol.ts"

// Rules 3 and 4 of website events: what a consent claim does, without services.

export type ConsentOutcome =
  | "honoured"
  | "consent_evidence_missing"
  | "consent_evidence_stale"
  | "consent_ignored_opted_out"
  | "consent_source_ignores"

export interface ConsentClaim {
  readonly email_marketing: boolean
  readonly text?: string | undefined
  readonly captured_at?: string | undefined
}

const MAX_AGE_MS = 7 * 86_400_000

/**
 * `email_marketing: true` is honoured only with the sentence shown and a `captured_at` at most 7 days old (a time in
 * the future is no evidence of a past capture: stale too), from a source that honours consent, for a contact who
 * never opted out. `false` records nothing (undefined): withdrawing goes through the unsubscribe link or the API.
 */
export const consentOutcome = (
  claim: ConsentClaim | undefined,
  mode: "honour" | "ignore",
  optedOut: boolean,
  now: number
): ConsentOutcome | undefined => {
  if (claim === undefined || !claim.email_marketing) return undefined
  if (mode === "ignore") return "consent_source_ignores"
  if (claim.text === undefined || claim.captured_at === undefined) return "consent_evidence_missing"
  const t = Date.parse(claim.captured_at)
  if (t < now - MAX_AGE_MS || t > now + 5 * 60_000) return "consent_evidence_stale"
  if (optedOut) return "consent_ignored_opted_out"
  return "honoured"
}

const MESSAGES: Record<Exclude<ConsentOutcome, "honoured">, string> = {
  consent_evidence_missing: "Consent not recorded: send consent.text (the sentence shown) and consent.captured_at; no marketing email is sent",
  consent_evidence_stale: "Consent not recorded: captured_at is more than 7 days old (or in the future)",
  consent_ignored_opted_out: "Consent not recorded: this contact opted out, and no event re-subscribes them",
  consent_source_ignores: "Consent not recorded: this source is set to ignore consent claims"
}

export const consentWarning = (o: ConsentOutcome | undefined): ReadonlyArray<WebsiteWarning> =>
  o === undefined || o === "honoured" ? [] : [{ code: o, message: MESSAGES[o] }]
