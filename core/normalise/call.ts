// Call facts as stored: the ingress derives them from a provider's payload, the telephony actor keeps them.

/** `no_answer` and `voicemail` are missed calls; other outcomes are kept as sent. */
export const storedOutcome = (outcome: string): string =>
  ["no_answer", "voicemail", "missed"].includes(outcome.trim().toLowerCase()) ? "missed" : outcome.trim()

/** Seconds between two instants, never negative. */
export const secondsBetween = (from: string, to: string): number =>
  Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000))
